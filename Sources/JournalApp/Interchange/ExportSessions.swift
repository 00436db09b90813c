import Foundation
import JournalCore
import JournalDiagnostics
import JournalStorage

/// `journal export` and `journal import`: sessions out as plaintext, and back in.
public enum ExportSessions {
  /// Writes the sessions the filter takes in `format` (only `fields`, when given) to
  /// `destination` a session at a time, as they are read (memory does not grow with the
  /// journal), encrypted to `recipients` by age when there are any; how many, and the ids of
  /// rows that could not be opened. The recipients are checked before the vault is opened;
  /// the output file is made only once it is, and named only once whole (`OutputFile`).
  public static func export(
    _ filter: SessionFilter, as format: ExportFormat, fields: Set<Field>? = nil,
    to destination: OutputFile.Destination, encryptingTo recipients: AgeRecipients? = nil,
    _ runtime: Runtime
  ) throws -> (count: Int, damaged: [SessionID]) {
    let environment = runtime.context.environment
    if let recipients, !recipients.isEmpty { try recipients.check(environment: environment) }
    let journal = try runtime.openVault()
    var writer = Export.Writer(
      format: format, exported: runtime.context.now(), timeZone: runtime.context.timeZone,
      fields: fields)
    var output: OutputFile?
    var count = 0
    let damaged = try journal.export(filter) { total in
      if recipients?.isEmpty ?? true {
        Report.note(
          "the export is not encrypted: keep it somewhere private, and delete it when done")
      }
      output = try OutputFile(destination, encryptingTo: recipients, environment: environment)
      try output?.write(writer.begin(count: total))
    } _: { session in
      try output?.write(writer.add(session))
      count += 1
    }
    try output?.write(writer.end())
    try output?.finish()
    return (count, damaged)
  }

  /// `journal share`: the sessions named (any unique start of their ids), oldest first, in
  /// `format` with only `fields` (every field when nil), encrypted to `recipients`, which
  /// must be given. How many.
  public static func share(
    _ ids: [String], as format: ExportFormat, fields: Set<Field>?,
    to destination: OutputFile.Destination, encryptingTo recipients: AgeRecipients,
    _ runtime: Runtime
  ) throws -> Int {
    guard !recipients.isEmpty else { throw AppError.shareNeedsRecipients }
    let environment = runtime.context.environment
    try recipients.check(environment: environment)
    let journal = try runtime.openVault()
    var chosen: [SessionID] = []
    for text in ids {
      let id = try journal.resolve(text)
      if !chosen.contains(id) { chosen.append(id) }
    }
    let sessions = try chosen.map { try journal.session($0) }.sorted {
      $0.date != $1.date ? $0.date < $1.date : $0.id < $1.id
    }
    var writer = Export.Writer(
      format: format, exported: runtime.context.now(), timeZone: runtime.context.timeZone,
      fields: fields)
    let output = try OutputFile(destination, encryptingTo: recipients, environment: environment)
    try output.write(writer.begin(count: sessions.count))
    for session in sessions { try output.write(writer.add(session)) }
    try output.write(writer.end())
    try output.finish()
    return sessions.count
  }

  /// The fields named in `--fields` ("reflection,mood-before,mood-after"), or nil for none.
  public static func fields(_ text: String?) throws -> Set<Field>? {
    guard let text else { return nil }
    var fields = Set<Field>()
    for name in text.split(separator: ",") {
      guard let field = Field(rawValue: name.trimmingCharacters(in: .whitespaces).lowercased())
      else {
        throw AppError.badSetting(
          name: "--fields",
          expected: "a comma-separated list of "
            + Prose.list(Field.allCases.map(\.rawValue)))
      }
      fields.insert(field)
    }
    guard !fields.isEmpty else {
      throw AppError.badSetting(name: "--fields", expected: "at least one field")
    }
    return fields
  }

  /// What an import found.
  public struct Imported {
    public let fromJrnl: Bool
    public let count: ImportCount
  }

  /// Reads `file` ("-" for standard input) a session at a time and brings its sessions in
  /// as they are read, all or nothing (one transaction: a problem anywhere in the file
  /// undoes every session before it), or, with `dryRun`, only counts what would change.
  public static func importFile(
    _ file: String, dryRun: Bool, restorePurged: Bool = false, _ runtime: Runtime
  ) throws -> Imported {
    let fd = file == "-" ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw AppError.importRefused(place: Quoted.data(file), reason: "cannot be read")
    }
    defer { if fd != STDIN_FILENO { close(fd) } }
    let parser = ImportParser(timeZone: runtime.context.timeZone, now: runtime.context.now())
    let journal = try runtime.openVault()
    var stream = JSONStream(fd: fd)
    var kind = ImportParser.Kind.journal
    // Read on a thread of its own while this one writes, when the reading cannot stall (a
    // pipe could: a writer that failed would then wait for it).
    var info = stat()
    let regular = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    let count: ImportCount
    do {
      count = try journal.importSessions(
        dryRun: dryRun, restorePurged: restorePurged, overlap: regular
      ) { take in
        kind = try parser.parse(&stream, take)
      }
    } catch AppError.importRefused(place: "the file", reason: "cannot be read") {
      // Opened but not readable (a directory): named as a file that cannot be opened is.
      throw AppError.importRefused(place: Quoted.data(file), reason: "cannot be read")
    }
    return Imported(fromJrnl: kind == .jrnl, count: count)
  }
}
