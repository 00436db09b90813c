import Foundation
import JournalCore

/// `journal export` and `journal import`: sessions out as plaintext, and back in.
public enum ExportSessions {
  /// Writes the sessions the filter takes in `format` to `destination` a session at a time,
  /// as they are read (memory does not grow with the journal); how many, and the ids of rows
  /// that could not be opened. The output file is made only once the vault is open, and
  /// removed if the export fails half-way.
  public static func export(
    _ filter: SessionFilter, as format: ExportFormat, to destination: OutputFile.Destination,
    _ runtime: Runtime
  ) throws -> (count: Int, damaged: [SessionID]) {
    let journal = try runtime.openVault()
    var writer = Export.Writer(
      format: format, exported: runtime.context.now(), timeZone: runtime.context.timeZone)
    var output: OutputFile?
    var count = 0
    let damaged = try journal.export(filter) { total in
      Report.note("the export is not encrypted: keep it somewhere private, and delete it when done")
      output = try OutputFile(destination)
      try output?.write(writer.begin(count: total))
    } _: { session in
      try output?.write(writer.add(session))
      count += 1
    }
    try output?.write(writer.end())
    try output?.finish()
    return (count, damaged)
  }

  /// What an import found.
  public struct Imported {
    public let fromJrnl: Bool
    public let count: ImportCount
  }

  /// Reads `file` ("-" for standard input) a session at a time and brings its sessions in
  /// as they are read, all or nothing (one transaction: a problem anywhere in the file
  /// undoes every session before it), or, with `dryRun`, only counts what would change.
  public static func importFile(_ file: String, dryRun: Bool, _ runtime: Runtime) throws
    -> Imported
  {
    let fd = file == "-" ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
      throw AppError.importRefused(place: #""\#(file)""#, reason: "cannot be read")
    }
    defer { if fd != STDIN_FILENO { close(fd) } }
    let parser = ImportParser(timeZone: runtime.context.timeZone, now: runtime.context.now())
    let journal = try runtime.openVault()
    var stream = JSONStream(fd: fd)
    var kind = ImportParser.Kind.journal
    let count: ImportCount
    do {
      count = try journal.importSessions(dryRun: dryRun) { take in
        kind = try parser.parse(&stream, take)
      }
    } catch AppError.importRefused(place: "the file", reason: "cannot be read") {
      // Opened but not readable (a directory): named as a file that cannot be opened is.
      throw AppError.importRefused(place: #""\#(file)""#, reason: "cannot be read")
    }
    return Imported(fromJrnl: kind == .jrnl, count: count)
  }
}
