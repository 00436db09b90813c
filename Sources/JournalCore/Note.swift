import Foundation

/// An integration note: a dated text added to a saved session later (a dream that came back,
/// a conversation that went differently), with how it feels now. Notes never change a
/// session's status; they are kept in the order written.
///
/// Every write of a note (adding, correcting, deleting) is a new version, named by 8 random
/// bytes, and the note remembers the versions it replaced. That alone lets two devices merge
/// their notes without a base (`NoteMerge`): a version that descends from the other wins, and
/// two written apart are both kept.
public struct Note: Hashable, Sendable {
  /// A note's identity: 8 random bytes, stable for its whole life.
  public struct ID: Hashable, Comparable, Sendable {
    public let value: UInt64

    public init(_ value: UInt64) { self.value = value }

    public static func < (a: ID, b: ID) -> Bool { a.value < b.value }
  }

  public let id: ID
  /// When it was first written.
  public internal(set) var written: Date
  /// When it was last corrected; nil if never.
  public internal(set) var edited: Date?
  /// How it feels now, when the person said.
  public internal(set) var mood: Mood?
  /// The text; empty once a deleted note has been purged.
  public internal(set) var text: String
  /// When it was deleted: a deleted note is kept, its text until the undo window closes
  /// (`purgeAfter`), and its identity for good, so that a sync never brings it back.
  public internal(set) var deleted: Date?
  /// When the deletion's undo window closes (nil unless deleted and not yet purged).
  public internal(set) var purgeAfter: Date?
  /// Written without the passphrase (sealed capture), opened with it later.
  public internal(set) var addedSealed: Bool
  /// The note this one was kept from: another device's correction of it, written at the same
  /// time as the one shown (sync keeps both; nothing is lost).
  public internal(set) var keptFrom: ID?
  /// This version, then up to `remembered - 1` it replaced, newest first.
  public internal(set) var versions: [UInt64]

  /// The bytes of text `notes` hold together (UTF-8), as `maximumTotalBytes` counts them.
  public static func bytes(of notes: [Note]) -> Int {
    notes.reduce(0) { $0 + $1.text.utf8.count }
  }

  /// How many versions a note remembers.
  public static let remembered = 16
  /// The longest note, in UTF-8 bytes: as long as a reflection.
  public static let maximumBytes = 1_048_576
  /// The most notes a session takes from a person, deleted ones included (their identity is
  /// kept), and the most bytes of text they may hold together: a session stays one an
  /// export brings back in.
  public static let maximumCount = 10_000
  public static let maximumTotalBytes = 8 * 1_048_576
  /// What a reader accepts: four times as much, so that devices that each filled a session
  /// at the same time still merge into one every device can read.
  public static let readableCount = 4 * maximumCount
  public static let readableTotalBytes = 4 * maximumTotalBytes

  /// Rebuilds a note exactly as stored. Only the store calls this; it checks what it reads.
  public init(
    id: ID, written: Date, edited: Date?, mood: Mood?, text: String, deleted: Date?,
    purgeAfter: Date?, addedSealed: Bool, keptFrom: ID?, versions: [UInt64]
  ) {
    self.id = id
    self.written = written
    self.edited = edited
    self.mood = mood
    self.text = text
    self.deleted = deleted
    self.purgeAfter = purgeAfter
    self.addedSealed = addedSealed
    self.keptFrom = keptFrom
    self.versions = versions
  }

  /// A new note, written at `now`; `random` gives its id and its first version.
  public init(text: String, mood: Mood?, now: Date, random: () -> UInt64) {
    self.init(
      id: ID(random()), written: Self.stored(now), edited: nil, mood: mood, text: text,
      deleted: nil, purgeAfter: nil, addedSealed: false, keptFrom: nil, versions: [random()])
  }

  /// `date` as it reads back from the vault: whole milliseconds. Notes are ordered by when
  /// they were written, and the order kept must be the order read.
  public static func stored(_ date: Date) -> Date {
    StoredRange.date(millis: StoredRange.millis(date)) ?? date
  }

  /// A note's text as typed, checked as a reflection's is (CRLF made LF, trimmed, no control
  /// characters but newlines and tabs, at most `maximumBytes`).
  public static func normalise(_ text: String) throws(FieldError) -> String {
    let checked: String?
    do {
      checked = try Text.normalise(text, field: .reflection, multiline: true)
    } catch .textTooLong {
      throw .noteTooLong(maximumBytes: maximumBytes)
    } catch .controlCharacters {
      throw .noteControlCharacters
    } catch {
      throw error
    }
    guard let checked else { throw .emptyNote }
    return checked
  }

  /// A note's mood as typed: a whole number from 1 to 10.
  public static func mood(_ text: String) throws(FieldError) -> Mood {
    guard let number = Int(text.trimmingWhitespace()), let mood = Mood(number) else {
      throw .noteMood
    }
    return mood
  }

  /// Whether it was deleted and its window has closed: text and mood gone.
  var isPurged: Bool { deleted != nil && purgeAfter == nil && text.isEmpty && mood == nil }

  /// This note as the layout writes it: what two copies are compared by when nothing else
  /// tells them apart.
  var encoded: [UInt8] {
    var out: [UInt8] = []
    FieldCodec.put(.notes, notes: [self], into: &out)
    return out
  }

  /// Whether it is shown: not deleted.
  public var isShown: Bool { deleted == nil }

  /// When it last changed: its last correction, or when it was written.
  public var changed: Date { deleted ?? edited ?? written }

  /// Records a new version; a correction (`corrects`) also sets when it was last corrected,
  /// a deletion or a restoring does not.
  mutating func newVersion(_ version: UInt64, at now: Date, corrects: Bool = true) {
    versions = Array(([version] + versions).prefix(Self.remembered))
    if corrects { edited = Self.stored(max(now, written)) }
  }

  /// Whether this version descends from `other`'s (or is it).
  func descends(from other: Note) -> Bool {
    guard let theirs = other.versions.first else { return false }
    return versions.contains(theirs)
  }
}

/// A note's mood and how many whole days after the session it was written: what `trends`
/// reads of notes, kept in the summary so that it opens no body.
public struct NoteMood: Hashable, Sendable {
  /// Days from the session's date to the note (0 for a note written before it), at most
  /// `UInt16.max`.
  public let days: UInt16
  public let mood: Mood

  public init(days: UInt16, mood: Mood) {
    self.days = days
    self.mood = mood
  }

  /// The moods of the shown `notes` that have one, with the days since `date`, in order: the
  /// one derivation of the summary's copy (SECURITY.md, tag 12).
  public static func of(_ notes: [Note], after date: Date) -> [NoteMood] {
    notes.compactMap { note in
      guard note.isShown, let mood = note.mood else { return nil }
      // In whole stored milliseconds, as any reader can count them exactly.
      let elapsed = StoredRange.millis(note.written) - StoredRange.millis(date)
      let days = max(0, elapsed / 86_400_000)
      return NoteMood(days: UInt16(min(days, Int64(UInt16.max))), mood: mood)
    }
  }
}

/// What a person asks of a session's notes, and why it cannot be done.
public enum NoteError: Error, Equatable, Sendable {
  /// No shown note has this number (1 is the oldest).
  case noSuchNote(number: Int, count: Int)
  /// The session holds as many notes as it may.
  case tooManyNotes
  /// No deleted note's window is still open.
  case nothingToRestore
  /// The session's notes hold as much text as they may.
  case notesTooLong(maximumBytes: Int)
  /// The note was changed or removed meanwhile (another command, a sync): nothing was done.
  case changedMeanwhile(number: Int)
}

extension Session {
  /// The notes shown, in the order written (oldest first): what `show` lists and what the
  /// numbers people type count.
  public var shownNotes: [Note] { notes.filter(\.isShown) }

  /// The moods of the notes shown that have one, with the days since the session, in the
  /// order written (the summary's copy, SECURITY.md tag 12).
  public var noteMoods: [NoteMood] { NoteMood.of(notes, after: date) }

  /// Adds a note written now; the status does not change.
  public mutating func addNote(_ note: Note, now: Date) throws(NoteError) {
    guard notes.count < Note.maximumCount else { throw .tooManyNotes }
    guard noteBytes + note.text.utf8.count <= Note.maximumTotalBytes else {
      throw .notesTooLong(maximumBytes: Note.maximumTotalBytes)
    }
    var note = note
    // Two notes written in the same millisecond keep the order they were added in: by
    // stored milliseconds, the order they are read in.
    var millis = StoredRange.millis(note.written)
    let taken = Set(notes.map { StoredRange.millis($0.written) })
    while taken.contains(millis), millis < StoredRange.millis.upperBound { millis += 1 }
    note.written = StoredRange.date(millis: millis) ?? note.written
    notes.append(note)
    sortNotes()
    updated = max(now, updated)
  }

  /// The bytes of text its notes hold, deleted ones not yet purged included.
  var noteBytes: Int { Note.bytes(of: notes) }

  /// Whether its notes are as a reader takes them: ordered by stored time then id, each id
  /// once, within the readable bounds. What the store checks before it writes a session.
  public var notesAreReadable: Bool {
    // Most sessions have none: every write asks (an import, 100,000 times).
    guard !notes.isEmpty else { return true }
    guard notes.count <= Note.readableCount, noteBytes <= Note.readableTotalBytes,
      notes.allSatisfy({
        $0.text.utf8.count <= Note.maximumBytes && !$0.versions.isEmpty
          && $0.versions.count <= Note.remembered
      })
    else { return false }
    let keys = notes.map { (StoredRange.millis($0.written), $0.id) }
    return zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 }
      && Set(notes.map(\.id)).count == notes.count
  }

  /// The shown note numbered `number` (1 is the oldest).
  public func note(numbered number: Int) throws(NoteError) -> Note {
    let shown = shownNotes
    guard number >= 1, number <= shown.count else {
      throw .noSuchNote(number: number, count: shown.count)
    }
    return shown[number - 1]
  }

  /// Corrects note `number`: its text (nil keeps it) and its mood (nil keeps it, `.some(nil)`
  /// removes it), as a new version.
  public mutating func editNote(
    _ number: Int, text: String?, mood: Mood??, version: UInt64, now: Date,
    expecting seen: Note? = nil
  ) throws(NoteError) -> Note {
    let index = try index(numbered: number, expecting: seen)
    if let text {
      guard noteBytes - notes[index].text.utf8.count + text.utf8.count <= Note.maximumTotalBytes
      else { throw .notesTooLong(maximumBytes: Note.maximumTotalBytes) }
      notes[index].text = text
    }
    if let mood { notes[index].mood = mood }
    notes[index].newVersion(version, at: now)
    updated = max(now, updated)
    return notes[index]
  }

  /// Deletes note `number`: it is no longer shown, and its text is kept until `purgeAfter`
  /// (the undo window), then purged (`purgeNotes`).
  public mutating func deleteNote(
    _ number: Int, purgeAfter: Date, version: UInt64, now: Date, expecting seen: Note? = nil
  ) throws(NoteError) -> Note {
    let index = try index(numbered: number, expecting: seen)
    notes[index].newVersion(version, at: now, corrects: false)
    notes[index].deleted = Note.stored(max(now, notes[index].written))
    notes[index].purgeAfter = Note.stored(max(purgeAfter, now))
    updated = max(now, updated)
    return notes[index]
  }

  /// Where the shown note numbered `number` is; when `seen` is given, it must still be that
  /// note in that version (a command that asked or opened an editor in between acts on what
  /// it showed, or on nothing).
  private func index(numbered number: Int, expecting seen: Note?) throws(NoteError) -> Int {
    // The note shown is found by its id: a note added or deleted before it meanwhile moves
    // the numbers, not the note.
    if let seen {
      guard let index = notes.firstIndex(where: { $0.id == seen.id }),
        notes[index].isShown, notes[index].versions.first == seen.versions.first
      else { throw .changedMeanwhile(number: number) }
      return index
    }
    let id = try note(numbered: number).id
    guard let index = notes.firstIndex(where: { $0.id == id }) else {
      throw .noSuchNote(number: number, count: shownNotes.count)
    }
    return index
  }

  /// Restores the note deleted last whose window is still open at `now` (only `only`, when
  /// given), as a new version.
  public mutating func restoreNote(
    version: UInt64, now: Date, only: Note.ID? = nil
  ) throws(NoteError) -> Note {
    let open = notes.indices.compactMap { index -> (Date, Note.ID, Int)? in
      guard let deleted = notes[index].deleted, let end = notes[index].purgeAfter, now < end,
        only == nil || only == notes[index].id
      else { return nil }
      return (deleted, notes[index].id, index)
    }
    guard let index = open.max(by: { ($0.0, $0.1) < ($1.0, $1.1) })?.2 else {
      throw .nothingToRestore
    }
    notes[index].deleted = nil
    notes[index].purgeAfter = nil
    notes[index].newVersion(version, at: now, corrects: false)
    updated = max(now, updated)
    return notes[index]
  }

  /// Whether a deleted note still holds its text after its window closed at `now`.
  public func hasNotesToPurge(at now: Date) -> Bool {
    notes.contains { $0.deleted != nil && ($0.purgeAfter.map { now >= $0 } ?? !$0.text.isEmpty) }
  }

  /// Purges the deleted notes whose window has closed at `now`: their text and mood go, their
  /// identity stays. The version does not change: a purge is no one's write, and every
  /// device purges the same note the same way.
  public mutating func purgeNotes(at now: Date) {
    for index in notes.indices where notes[index].deleted != nil {
      guard notes[index].purgeAfter.map({ now >= $0 }) ?? true else { continue }
      notes[index].text = ""
      notes[index].mood = nil
      notes[index].purgeAfter = nil
    }
  }

  /// Keeps the notes in the order written: by time, then id.
  mutating func sortNotes() {
    notes.sort { ($0.written, $0.id) < ($1.written, $1.id) }
  }

  /// Replaces every note (a merge's outcome, an import): sorted as written.
  public mutating func setNotes(_ merged: [Note]) {
    notes = merged
    sortNotes()
  }
}

/// The merge of two devices' notes for one session (SECURITY.md, "Sync"): pure,
/// deterministic, and needing no base. Notes one side has are kept; for a note both have, a
/// version that descends from the other's wins; two versions written apart (corrected on
/// both devices) keep the later one under the note's id and the other as a note of its own
/// (`keptFrom`), so no correction is lost; a deletion written apart from a correction yields
/// to the correction.
public enum NoteMerge {
  public static func merge(_ mine: [Note], _ theirs: [Note]) -> [Note] {
    var byID: [Note.ID: Note] = [:]
    for note in mine { byID[note.id] = note }
    for note in theirs {
      guard let other = byID[note.id] else {
        byID[note.id] = note
        continue
      }
      let (winner, kept) = resolve(other, note)
      byID[note.id] = winner
      if let kept, byID[kept.id] == nil { byID[kept.id] = kept }
    }
    return byID.values.sorted { ($0.written, $0.id) < ($1.written, $1.id) }
  }

  /// The version of one note to keep, and a version written apart to keep beside it.
  static func resolve(_ a: Note, _ b: Note) -> (Note, Note?) {
    if a == b { return (a, nil) }
    if a.versions.first == b.versions.first {
      // One version held two ways: a purge differs (the purged one stands), or a lie; either
      // way the same choice on every device, whichever side each copy is on.
      if a.isPurged != b.isPurged { return (a.isPurged ? a : b, nil) }
      return (a.encoded.lexicographicallyPrecedes(b.encoded) ? a : b, nil)
    }
    if a.descends(from: b) { return (a, nil) }
    if b.descends(from: a) { return (b, nil) }
    // Written apart. A deletion stands over a copy last changed before it (one it may have
    // replaced beyond the versions remembered) and yields to a correction made after it;
    // otherwise the later write wins.
    switch (a.deleted, b.deleted) {
    case (let deleted?, nil): return (b.changed > deleted ? b : a, nil)
    case (nil, let deleted?): return (a.changed > deleted ? a : b, nil)
    case (.some, .some): return (later(a, b) ? a : b, nil)
    case (nil, nil): break
    }
    let (winner, loser) = later(a, b) ? (a, b) : (b, a)
    guard loser.text != winner.text || loser.mood != winner.mood,
      let version = loser.versions.first
    else { return (winner, nil) }
    let kept = Note(
      id: Note.ID(version), written: loser.written, edited: loser.edited, mood: loser.mood,
      text: loser.text, deleted: nil, purgeAfter: nil, addedSealed: loser.addedSealed,
      keptFrom: loser.keptFrom ?? loser.id, versions: loser.versions)
    return (winner, kept)
  }

  /// Whether `a` was written after `b`: by time, then version.
  private static func later(_ a: Note, _ b: Note) -> Bool {
    (a.changed, a.versions.first ?? 0) > (b.changed, b.versions.first ?? 0)
  }
}
