import Foundation
import GRDB
import JournalCore
import JournalCrypto
import JournalStorage
import JournalStore
import JournalTestSupport
import Testing

/// Sealed additions in the vault file: written without the key, opened with it in one keyed
/// write, checked as stored sessions are.
struct AdditionsTests {
  /// A new session and later fields for a saved one, sealed without the key, open into
  /// sessions marked with when they were added; the additions are gone afterwards.
  @Test func openIntoSessionsMarked() throws {
    // Given a saved session, and additions written with only the public key
    let f = try StoreFixture()
    try f.store.setSealing(publicKey: f.keys.sealingPublicKey)
    let saved = try f.session(seed: 1, reflection: nil)
    try f.store.upsert(saved)
    let fresh = try f.session(seed: 2, reflection: nil)
    let added = TestClock.reference + 3600
    try f.vault.addSealed(
      .new, id: fresh.id, completes: false, at: added,
      box: try SealedBox.seal(RecordCodec.encodeNewAddition(fresh), to: f.keys.sealingPublicKey),
      sealedTo: f.keys.sealingPublicKey)
    let later = RecordCodec.encodeLaterAddition([.reflection("LATER-WORDS")], at: added)
    try f.vault.addSealed(
      .later, id: saved.id, completes: true, at: added + 60,
      box: try SealedBox.seal(later, to: f.keys.sealingPublicKey),
      sealedTo: f.keys.sealingPublicKey)
    #expect(try f.vault.sealedCount() == 2)
    #expect(try f.vault.waitingCount() == 1, "the fresh one waits; the reflected one no more")
    #expect(try f.vault.resolveForSealing(fresh.id.short) == fresh.id)
    // When they are opened with the key
    let opened = try f.store.openAdditions(
      keys: f.keys, now: added + 120, random: SeededRandom(seed: 9))
    // Then
    #expect(opened.added == [fresh.id])
    #expect(opened.updated == [saved.id])
    #expect(opened.damaged.isEmpty)
    #expect(try f.vault.sealedCount() == 0)
    let new = try f.store.session(fresh.id)
    #expect(new.intention == fresh.intention)
    #expect(new.addedSealed == added)
    let reflected = try f.store.session(saved.id)
    #expect(reflected.reflection == "LATER-WORDS")
    #expect(reflected.status == .complete)
    #expect(reflected.laterSealed == added + 60)
    #expect(reflected.addedSealed == nil)
  }

  /// A box that does not open, or that opens to what the layout refuses, is reported by id
  /// and removed; the others open.
  @Test func damagedAreNamedOthersOpen() throws {
    let f = try StoreFixture()
    try f.store.setSealing(publicKey: f.keys.sealingPublicKey)
    let good = try f.session(seed: 3, reflection: nil)
    let bad = try f.session(seed: 4, reflection: nil)
    let forged = try f.session(seed: 5, reflection: nil)
    for session in [good, bad] {
      try f.vault.addSealed(
        .new, id: session.id, completes: false, at: TestClock.reference,
        box: try SealedBox.seal(
          RecordCodec.encodeNewAddition(session), to: f.keys.sealingPublicKey),
        sealedTo: f.keys.sealingPublicKey)
    }
    // A plaintext that claims the marks itself: refused by the layout.
    var marked = forged
    marked.markAddedSealed(at: TestClock.reference)
    let plain = RecordCodec.encodeSummary(marked) + RecordCodec.encodeBody(marked).dropFirst()
    try f.vault.addSealed(
      .new, id: forged.id, completes: false, at: TestClock.reference,
      box: try SealedBox.seal(plain, to: f.keys.sealingPublicKey),
      sealedTo: f.keys.sealingPublicKey)
    try f.vault.setReminder(bad.id, due: TestClock.reference, repeatInterval: 86_400)
    let queue = try DatabaseQueue(path: f.path)
    try queue.write { db in
      try db.execute(
        sql: "UPDATE addition SET box = zeroblob(length(box)) WHERE id = ?",
        arguments: [bad.id.hex])
    }
    try queue.close()
    let opened = try f.store.openAdditions(
      keys: f.keys, now: TestClock.reference, random: SeededRandom(seed: 9))
    #expect(opened.added == [good.id])
    #expect(opened.damaged == [bad.id, forged.id])
    #expect(try f.vault.sealedCount() == 0)
    // The reminder of the one that did not open went with it: the vault still adds up.
    #expect(try f.vault.reminders().isEmpty)
    #expect(try f.store.recheck() != nil)
  }

  /// Without the key: a new addition with an id already taken, and later fields for a
  /// session that is not there, are refused; the sealing setting reads and changes.
  @Test func keylessChecks() throws {
    let f = try StoreFixture()
    try f.store.setSealing(publicKey: f.keys.sealingPublicKey)
    let saved = try f.session(seed: 6)
    try f.store.upsert(saved)
    #expect(throws: StoreError.self) {
      try f.vault.addSealed(
        .new, id: saved.id, completes: false, at: TestClock.reference, box: [],
        sealedTo: f.keys.sealingPublicKey)
    }
    let missing = SessionID(randomBytes: [UInt8](repeating: 7, count: 16))
    #expect(throws: StoreError.noMatch(prefix: missing.short)) {
      try f.vault.addSealed(
        .later, id: missing, completes: false, at: TestClock.reference, box: [],
        sealedTo: f.keys.sealingPublicKey)
    }
    #expect(try f.vault.sealing().publicKey == f.keys.sealingPublicKey)
    #expect(try f.vault.sealing().offered)
    try f.store.setSealing(publicKey: nil)
    #expect(try f.vault.sealing().publicKey == nil)
    // A box sealed to a key the vault no longer asks for is refused, not kept unopenable.
    let fresh = try f.session(seed: 8, reflection: nil)
    #expect(throws: StoreError.keyChanged) {
      try f.vault.addSealed(
        .new, id: fresh.id, completes: false, at: TestClock.reference, box: [1],
        sealedTo: f.keys.sealingPublicKey)
    }
  }

  /// An import of a newer copy of a session whose later fields were added without the
  /// passphrase (a copy exported before them, edited since) replaces its fields and keeps
  /// that mark: a copy from before a mark never removes it. (A copy that differs in whether
  /// the whole session was added without the passphrase is kept apart instead.)
  @Test func importOfANewerCopyKeepsTheMarks() throws {
    let f = try StoreFixture()
    let mark = TestClock.reference - 60
    let base = try f.session(seed: 1)
    func copy(dose: String?, updated: Date, laterSealed: Date?) -> Session {
      Session(
        id: base.id, date: base.date, treatment: base.treatment, dose: dose,
        intention: base.intention, moodBefore: base.moodBefore, environment: base.environment,
        music: base.music, moodAfter: base.moodAfter, reflection: base.reflection,
        created: base.created, updated: updated, status: base.status,
        laterSealed: laterSealed)
    }
    try f.store.upsert(copy(dose: base.dose, updated: base.updated, laterSealed: mark))
    let newer = copy(dose: "NEWER-DOSE", updated: base.updated + 60, laterSealed: nil)
    let count = try f.store.importSessions([newer], dryRun: false)
    #expect(count.updated == 1)
    #expect(count.keptApart.isEmpty)
    let read = try f.store.session(base.id)
    #expect(read.dose == "NEWER-DOSE")
    #expect(read.laterSealed == mark)
  }
}

/// Additions that contest one id, later fields too long to join, and boxes too large to be
/// journal's (the reviewer's findings 3, 7 and 8).
struct AdditionContestTests {
  static func seal(_ f: StoreFixture, _ session: Session) throws -> [UInt8] {
    try SealedBox.seal(RecordCodec.encodeNewAddition(session), to: f.keys.sealingPublicKey)
  }

  /// Two new additions claiming one id: neither takes it, both are kept apart, and later
  /// fields for that id go to each (the person's words are never lost to the stranger).
  @Test func contestedIDsAreBothKeptApart() throws {
    let f = try StoreFixture()
    try f.store.setSealing(publicKey: f.keys.sealingPublicKey)
    let mine = try f.session(seed: 21, reflection: nil)
    let theirs = try f.session(seed: 22, reflection: nil)
    for session in [mine, theirs] {
      try f.vault.addSealed(
        .new, id: session.id, completes: false, at: TestClock.reference,
        box: try Self.seal(f, session), sealedTo: f.keys.sealingPublicKey)
    }
    let later = try SealedBox.seal(
      RecordCodec.encodeLaterAddition([.reflection("MY-REFLECTION")], at: TestClock.reference),
      to: f.keys.sealingPublicKey)
    try f.vault.addSealed(
      .later, id: mine.id, completes: true, at: TestClock.reference, box: later,
      sealedTo: f.keys.sealingPublicKey)
    let queue = try DatabaseQueue(path: f.path)
    try queue.write { db in
      try db.execute(
        sql: "UPDATE addition SET id = ?, seq = 0 WHERE id = ?",
        arguments: [mine.id.hex, theirs.id.hex])
    }
    try queue.close()
    let opened = try f.store.openAdditions(
      keys: f.keys, now: TestClock.reference + 60, random: SeededRandom(seed: 5))
    #expect(opened.added.isEmpty)
    #expect(opened.keptApart.count == 2)
    #expect(opened.keptApart.allSatisfy { $0.claimed == mine.id })
    #expect(throws: StoreError.self) { try f.store.session(mine.id) }
    for kept in opened.keptApart {
      #expect(try f.store.session(kept.keptAs).reflection == "MY-REFLECTION")
    }
  }

  /// Later fields that would grow a text past its limit are opened apart as a session of
  /// their own, marked; the session keeps its words as they were.
  @Test func tooLongToJoinIsKeptApart() throws {
    let f = try StoreFixture()
    try f.store.setSealing(publicKey: f.keys.sealingPublicKey)
    let long = String(repeating: "w", count: 1_048_000)
    let session = try f.session(seed: 23, reflection: long)
    try f.store.upsert(session)
    let later = try SealedBox.seal(
      RecordCodec.encodeLaterAddition(
        [.reflection(String(repeating: "x", count: 10_000))], at: TestClock.reference),
      to: f.keys.sealingPublicKey)
    try f.vault.addSealed(
      .later, id: session.id, completes: true, at: TestClock.reference, box: later,
      sealedTo: f.keys.sealingPublicKey)
    let opened = try f.store.openAdditions(
      keys: f.keys, now: TestClock.reference + 60, random: SeededRandom(seed: 6))
    #expect(opened.keptApart.count == 1)
    #expect(try f.store.session(session.id).reflection == long)
    let apart = try f.store.session(try #require(opened.keptApart.first).keptAs)
    #expect(apart.reflection?.count == 10_000)
    #expect(apart.addedSealed != nil)
    #expect(apart.intention.hasPrefix("Later fields written without the passphrase"))
  }

  /// Notes planted with the public key alone (format 14), at their extremes: chosen ids
  /// that collide or sort against the person's, times in the same millisecond, a time far
  /// ahead, a note with a terminal escape, and more text than a session takes. The
  /// session's own note stays as it was, every planted one that could be opened is added
  /// marked (or opened apart), the escape is damage, and the session reads back whole.
  @Test func plantedNotesNeverLockTheSessionOut() throws {
    let f = try StoreFixture()
    try f.store.setSealing(publicKey: f.keys.sealingPublicKey)
    var session = try f.session(seed: 31, reflection: nil)
    let m = TestClock.reference
    let own = Note(
      id: Note.ID(9), written: m + 0.001, edited: nil, mood: Mood(6), text: "MY-OWN-NOTE",
      deleted: nil, purgeAfter: nil, addedSealed: false, keptFrom: nil, versions: [1])
    try session.addNote(own, now: m)
    try f.store.upsert(session)
    func plant(_ id: UInt64, _ written: Date, _ text: String, mood: Mood? = nil) throws {
      let note = Note(
        id: Note.ID(id), written: written, edited: nil, mood: mood, text: text, deleted: nil,
        purgeAfter: nil, addedSealed: false, keptFrom: nil, versions: [id])
      try f.vault.addSealed(
        .later, id: session.id, completes: false, at: m + 5,
        box: try SealedBox.seal(
          RecordCodec.encodeNoteAddition(note, at: m), to: f.keys.sealingPublicKey),
        sealedTo: f.keys.sealingPublicKey)
    }
    try plant(9, m + 0.001, "SAME-ID-AND-TIME")
    try plant(5, m, "SAME-MILLISECOND-A")
    try plant(7, m, "SAME-MILLISECOND-B", mood: Mood(2))
    try plant(11, m + 10_000_000, "FAR-AHEAD")
    try plant(12, m, "ESCAPE\u{1B}[2J")
    let big = String(repeating: "n", count: 1_048_576)
    for index in 0..<9 { try plant(100 + UInt64(index), m, big) }
    let opened = try f.store.openAdditions(
      keys: f.keys, now: m + 60, random: SeededRandom(seed: 31))
    #expect(opened.damaged == [session.id])
    let read = try f.store.session(session.id)
    #expect(read.notes.first { $0.id == own.id }?.text == "MY-OWN-NOTE")
    #expect(read.notes.first { $0.id == own.id }?.addedSealed == false)
    #expect(read.notes.filter(\.addedSealed).count == 4 + 7)
    #expect(read.notes.allSatisfy { $0.written <= m + 60 })
    #expect(!read.notes.contains { $0.text.hasPrefix("ESCAPE") })
    #expect(read.notesAreReadable)
    // What did not fit (8 MiB of notes) was opened apart, nothing lost.
    #expect(opened.keptApart.count == 2)
    for apart in opened.keptApart {
      #expect(try f.store.session(apart.keptAs).shownNotes.first?.text == big)
    }
  }

  /// Texts no form would save (a terminal escape, a control character in a one-line dose,
  /// untrimmed), planted in a new session or in later fields, are damage: named, never
  /// opened into a session `show` would print to a terminal.
  @Test func textsNoFormWouldSaveAreDamage() throws {
    let f = try StoreFixture()
    try f.store.setSealing(publicKey: f.keys.sealingPublicKey)
    let saved = try f.session(seed: 41, reflection: nil)
    try f.store.upsert(saved)
    var planted: [SessionID] = []
    for (index, text) in ["escape \u{1B}]0;owned\u{07}", " untrimmed", "bell\u{07}"].enumerated() {
      var fresh = try f.session(seed: 42 + UInt8(index), reflection: nil)
      try fresh.apply(.reflection(text), now: TestClock.reference)
      try f.vault.addSealed(
        .new, id: fresh.id, completes: true, at: TestClock.reference,
        box: try SealedBox.seal(
          RecordCodec.encodeNewAddition(fresh), to: f.keys.sealingPublicKey),
        sealedTo: f.keys.sealingPublicKey)
      planted.append(fresh.id)
    }
    var dosed = try f.session(seed: 50, reflection: nil)
    try dosed.apply(.dose("two\nlines"), now: TestClock.reference)
    try f.vault.addSealed(
      .new, id: dosed.id, completes: false, at: TestClock.reference,
      box: try SealedBox.seal(RecordCodec.encodeNewAddition(dosed), to: f.keys.sealingPublicKey),
      sealedTo: f.keys.sealingPublicKey)
    try f.vault.addSealed(
      .later, id: saved.id, completes: true, at: TestClock.reference,
      box: try SealedBox.seal(
        RecordCodec.encodeLaterAddition([.reflection("\u{1B}[2Jcleared")], at: TestClock.reference),
        to: f.keys.sealingPublicKey),
      sealedTo: f.keys.sealingPublicKey)
    let opened = try f.store.openAdditions(
      keys: f.keys, now: TestClock.reference + 60, random: SeededRandom(seed: 41))
    #expect(Set(opened.damaged) == Set(planted + [dosed.id, saved.id]))
    #expect(opened.added.isEmpty)
    #expect(try f.store.session(saved.id).reflection == nil)
  }

  /// A box longer than any journal seals is damage, removed without being read.
  @Test func oversizedBoxIsDamage() throws {
    let f = try StoreFixture()
    try f.store.setSealing(publicKey: f.keys.sealingPublicKey)
    let session = try f.session(seed: 24, reflection: nil)
    try f.vault.addSealed(
      .new, id: session.id, completes: false, at: TestClock.reference,
      box: try Self.seal(f, session), sealedTo: f.keys.sealingPublicKey)
    let queue = try DatabaseQueue(path: f.path)
    try queue.write { try $0.execute(sql: "UPDATE addition SET box = zeroblob(5 * 1048576)") }
    try queue.close()
    let opened = try f.store.openAdditions(
      keys: f.keys, now: TestClock.reference, random: SeededRandom(seed: 7))
    #expect(opened.damaged == [session.id])
    #expect(try f.vault.sealedCount() == 0)
  }
}
