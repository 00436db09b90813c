import Foundation
import JournalCore
import Testing

/// Sync's pure parts (SECURITY.md, "Sync"): the hybrid clock, stamps as bytes, the per-field
/// merge, `journal resolve`, and the kept conflicts as a field of the plaintext.
struct SyncMergeTests {
  let deviceA = [UInt8](repeating: 0xA1, count: 16)
  let deviceB = [UInt8](repeating: 0xB2, count: 16)
  let deviceC = [UInt8](repeating: 0xC3, count: 16)
  let created = Date(timeIntervalSince1970: 1_795_285_800)

  func stamp(_ time: UInt64, _ device: [UInt8], counter: UInt32 = 0) -> SyncStamp {
    SyncStamp(time: time, counter: counter, device: device)
  }

  /// The session every device last agreed on: saved, waiting for its reflection.
  var origin: Session {
    Session(
      id: SessionID(randomBytes: Array(repeating: 0x5E, count: 16)), date: created,
      treatment: .psilocybin, dose: "2 g", intention: "to rest", moodBefore: Mood(5),
      environment: nil, music: nil, moodAfter: nil, reflection: nil, created: created,
      updated: created, status: .needsReflection)
  }

  /// Every field of `origin` written once by device A, before anyone changed anything.
  var originStamps: SyncStamps {
    Dictionary(uniqueKeysWithValues: SyncField.allCases.map { ($0, stamp(1_000, deviceA)) })
  }

  var base: SyncMerge.Base { SyncMerge.Base(stamps: originStamps, conflicts: []) }

  /// `origin` as a device left it after making `changes`, each field changed stamped `stamp`.
  func written(_ changes: [Session.Change], at stamp: SyncStamp) throws -> SyncMerge.Version {
    var session = origin
    var stamps = originStamps
    for change in changes {
      try session.apply(change, now: Date(timeIntervalSince1970: Double(stamp.time) / 1000))
      let field = try #require(SyncField(change.field))
      stamps[field] = stamp
    }
    return SyncMerge.Version(session: session, stamps: stamps)
  }

  // MARK: - HybridClock

  /// A wall clock that goes back, or stands still, still gets a stamp after the last one.
  @Test func clockNeverGoesBack() {
    // Given
    var clock = HybridClock(time: 5_000, counter: 0, device: deviceA)
    // When
    let stamps = [6_000, 4_000, 6_000, 1, 7_000, 7_000].map { clock.stamp(physical: $0) }
    // Then
    for (earlier, later) in zip(stamps, stamps.dropFirst()) {
      #expect(earlier < later, "\(earlier) then \(later)")
    }
    #expect(stamps[1] == stamp(6_000, deviceA, counter: 1))
    #expect(stamps[4] == stamp(7_000, deviceA, counter: 0))
  }

  /// Having seen another device's stamp, the clock's next stamp orders after it even when the
  /// local wall clock is hours behind; an older stamp seen moves nothing.
  @Test func witnessMovesTheClockPastASeenStamp() {
    // Given
    var clock = HybridClock(time: 1_000, counter: 0, device: deviceA)
    let seen = stamp(9_000_000, deviceB, counter: 3)
    // When
    clock.witness(seen)
    clock.witness(stamp(500, deviceC, counter: 9))
    let next = clock.stamp(physical: 1_500)
    // Then
    #expect(next > seen)
    #expect(next == stamp(9_000_000, deviceA, counter: 4))
  }

  /// A stamp seen at the very clock reading this device is at, with a device id that sorts
  /// after this one's, still orders before this device's next stamp.
  @Test func witnessOfTheSameReadingStillOrdersAfter() {
    // Given
    var clock = HybridClock(time: 0, counter: 0, device: deviceA)
    let mine = clock.stamp(physical: 2_000)
    let seen = stamp(2_000, deviceC)
    #expect(mine < seen)
    // When
    clock.witness(seen)
    let next = clock.stamp(physical: 2_000)
    // Then
    #expect(next > seen)
  }

  // MARK: - SyncStamp

  /// A stamp is 28 bytes and reads back from them; any other length is refused.
  @Test func stampRoundTripsThroughItsBytes() {
    // Given
    let original = stamp(0x0123_4567_89AB_CDEF, deviceB, counter: 0xDEAD_BEEF)
    // When
    let bytes = original.encoded
    // Then
    #expect(bytes.count == SyncStamp.bytes)
    #expect(bytes.count == 28)
    #expect(SyncStamp(bytes) == original)
    #expect(SyncStamp(bytes.dropLast()) == nil)
    #expect(SyncStamp(bytes + [0]) == nil)
  }

  /// Bytes order as stamps do (time, then counter, then device), across byte boundaries.
  @Test func bytesOrderAsStampsDo() {
    // Given
    let times: [UInt64] = [0, 1, 255, 256, 65_535, 1_795_285_800_000, .max]
    let counters: [UInt32] = [0, 1, 255, 256, .max]
    let devices = [deviceA, deviceB, [UInt8](repeating: 0, count: 15) + [1]]
    let stamps = times.flatMap { time in
      counters.flatMap { counter in devices.map { stamp(time, $0, counter: counter) } }
    }
    // Then
    for a in stamps {
      for b in stamps {
        #expect((a < b) == a.encoded.lexicographicallyPrecedes(b.encoded), "\(a) vs \(b)")
      }
    }
  }

  /// The stamp of a field never written is all zeros, and orders before every other.
  @Test func noneIsAllZeros() {
    #expect(SyncStamp.none.encoded == [UInt8](repeating: 0, count: 28))
    #expect(SyncStamp.none < stamp(0, [UInt8](repeating: 0, count: 15) + [1]))
  }

  // MARK: - SyncMerge.merge

  /// The dose changed on one device and the reflection on the other: both survive, each
  /// with its own stamp, and nothing is kept as a conflict.
  @Test func differentFieldsBothSurvive() throws {
    // Given
    let local = try written([.dose("3 g")], at: stamp(2_000, deviceA))
    let incoming = try written([.reflection("it was quiet")], at: stamp(2_001, deviceB))
    // When
    let merged = SyncMerge.merge(local: local, base: base, incoming: incoming)
    // Then
    #expect(merged.session.dose == "3 g")
    #expect(merged.session.reflection == "it was quiet")
    #expect(merged.stamps[.dose] == stamp(2_000, deviceA))
    #expect(merged.stamps[.reflection] == stamp(2_001, deviceB))
    #expect(merged.session.conflicts.isEmpty)
  }

  /// Tags are one field, the later write of the set winning; notes added on both devices
  /// are all kept whatever the stamps say, in both directions.
  @Test func tagsByStampNotesFromBoth() throws {
    // Given
    var local = try written([], at: stamp(2_000, deviceA))
    var incoming = try written([], at: stamp(3_000, deviceB))
    try local.session.retag(adding: ["here"], removing: [], now: created + 1)
    local.stamps[.tags] = stamp(2_000, deviceA)
    try incoming.session.retag(adding: ["there"], removing: [], now: created + 2)
    incoming.stamps[.tags] = stamp(3_000, deviceB)
    var next: UInt64 = 0
    func random() -> UInt64 {
      next += 1
      return next
    }
    try local.session.addNote(
      Note(text: "from here", mood: nil, now: created + 1, random: random), now: created + 1)
    try incoming.session.addNote(
      Note(text: "from there", mood: Mood(4), now: created + 2, random: random), now: created + 2)
    // When
    let here = SyncMerge.merge(local: local, base: base, incoming: incoming)
    let there = SyncMerge.merge(local: incoming, base: base, incoming: local)
    // Then
    for merged in [here, there] {
      #expect(merged.session.tags == ["there"])
      #expect(merged.stamps[.tags] == stamp(3_000, deviceB))
      #expect(merged.session.shownNotes.map(\.text) == ["from here", "from there"])
      #expect(merged.session.conflicts.isEmpty)
    }
    #expect(here.session == there.session)
  }

  /// A field changed only on one side takes that side's value, whichever side it is, even
  /// when the other side's stamps are later.
  @Test func fieldChangedOnOneSideTakesThatSide() throws {
    // Given
    let changed = try written([.music("rain sounds")], at: stamp(2_000, deviceA))
    let unchanged = try written([.moodAfter(Mood(7))], at: stamp(9_000, deviceB))
    // When
    let here = SyncMerge.merge(local: changed, base: base, incoming: unchanged)
    let there = SyncMerge.merge(local: unchanged, base: base, incoming: changed)
    // Then
    for merged in [here, there] {
      #expect(merged.session.music == "rain sounds")
      #expect(merged.stamps[.music] == stamp(2_000, deviceA))
      #expect(merged.session.moodAfter == Mood(7))
      #expect(merged.session.conflicts.isEmpty)
    }
  }

  /// The same text written differently on both devices: the later stamp wins on both, and
  /// the losing text is kept as a conflict named by the loser's stamp.
  @Test func sameTextOnBothSidesLaterWinsLoserKept() throws {
    // Given
    let earlier = stamp(2_000, deviceA), later = stamp(2_000, deviceB)
    let a = try written([.reflection("gratitude")], at: earlier)
    let b = try written([.reflection("grief, then calm")], at: later)
    // When
    let onA = SyncMerge.merge(local: a, base: base, incoming: b)
    let onB = SyncMerge.merge(local: b, base: base, incoming: a)
    // Then
    #expect(onA.session == onB.session)
    #expect(onA.session.conflicts == onB.session.conflicts)
    #expect(onA.stamps == onB.stamps)
    #expect(onA.session.reflection == "grief, then calm")
    #expect(onA.stamps[.reflection] == later)
    #expect(
      onA.session.conflicts == [Conflict(field: .reflection, text: "gratitude", stamp: earlier)])
  }

  /// Two values a device might give the mood after, and two it might give the date.
  static let nonTextWrites: [(Session.Change, Session.Change)] = [
    (.moodAfter(Mood(3)), .moodAfter(Mood(9))),
    (
      .date(Date(timeIntervalSince1970: 1_795_200_000)),
      .date(Date(timeIntervalSince1970: 1_795_280_000))
    ),
  ]

  /// The mood after, or the date, set on both devices: the later stamp wins on both and
  /// nothing is kept (only texts a person wrote are).
  @Test(arguments: nonTextWrites)
  func sameNonTextOnBothSidesLaterWinsNoConflict(
    early: Session.Change, late: Session.Change
  ) throws {
    // Given
    let a = try written([early], at: stamp(2_000, deviceA))
    let b = try written([late], at: stamp(2_500, deviceB))
    // When
    let onA = SyncMerge.merge(local: a, base: base, incoming: b)
    let onB = SyncMerge.merge(local: b, base: base, incoming: a)
    // Then
    #expect(onA == onB)
    #expect(onA.session == b.session)
    let field = try #require(SyncField(late.field))
    #expect(onA.stamps[field] == stamp(2_500, deviceB))
    #expect(onA.session.conflicts.isEmpty)
  }

  /// The same text written on both devices is no conflict: the later stamp is kept.
  @Test func equalTextsOnBothSidesNoConflict() throws {
    // Given
    let a = try written([.environment("home, evening")], at: stamp(2_000, deviceA))
    let b = try written([.environment("home, evening")], at: stamp(2_100, deviceB))
    // When
    let merged = SyncMerge.merge(local: a, base: base, incoming: b)
    // Then
    #expect(merged.session.environment == "home, evening")
    #expect(merged.stamps[.environment] == stamp(2_100, deviceB))
    #expect(merged.session.conflicts.isEmpty)
  }

  /// A reflection written on either device completes the merged session, also when the
  /// other device closed it without one.
  @Test func reflectionFromEitherSideCompletes() throws {
    // Given
    let reflected = try written([.reflection("light")], at: stamp(2_000, deviceA))
    let waiting = try written([.music("drums")], at: stamp(2_100, deviceB))
    var closed = origin
    try closed.apply(.close, now: created + 60)
    var closedStamps = originStamps
    closedStamps[.closed] = stamp(2_200, deviceC)
    let closedVersion = SyncMerge.Version(session: closed, stamps: closedStamps)
    // When
    let merges = [
      SyncMerge.merge(local: reflected, base: base, incoming: waiting),
      SyncMerge.merge(local: waiting, base: base, incoming: reflected),
      SyncMerge.merge(local: reflected, base: base, incoming: closedVersion),
      SyncMerge.merge(local: closedVersion, base: base, incoming: reflected),
    ]
    // Then
    for merged in merges {
      #expect(merged.session.reflection == "light")
      #expect(merged.session.status == .complete)
    }
  }

  /// A conflict resolved on one device since the base is gone after the merge, whichever
  /// side resolved it.
  @Test func conflictDroppedOnOneSideIsDropped() throws {
    // Given both devices agreed on a reflection with a kept conflict
    let lost = Conflict(field: .reflection, text: "first take", stamp: stamp(2_000, deviceA))
    var held = origin
    try held.apply(.reflection("second take"), now: created + 60)
    held.setConflicts([lost])
    var stamps = originStamps
    stamps[.reflection] = stamp(2_000, deviceB)
    let agreed = SyncMerge.Base(stamps: stamps, conflicts: [lost.stamp])
    var resolved = held
    try resolved.resolve(.reflection, keeping: .shown, now: created + 120)
    let stillHeld = SyncMerge.Version(session: held, stamps: stamps)
    let settled = SyncMerge.Version(session: resolved, stamps: stamps)
    // When
    let here = SyncMerge.merge(local: settled, base: agreed, incoming: stillHeld)
    let there = SyncMerge.merge(local: stillHeld, base: agreed, incoming: settled)
    // Then
    for merged in [here, there] {
      #expect(merged.session.conflicts.isEmpty)
      #expect(merged.session.reflection == "second take")
    }
  }

  /// Three devices write the reflection at once; merged in every order, one version after
  /// another against the same base as each device would, all end alike: the latest text,
  /// the two others kept.
  @Test func threeDevicesInEveryOrderAgree() throws {
    // Given
    let versions = [
      try written([.reflection("from A")], at: stamp(3_000, deviceA)),
      try written([.reflection("from B")], at: stamp(3_000, deviceB)),
      try written([.reflection("from C")], at: stamp(3_000, deviceC)),
    ]
    let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
    // When
    let results = orders.map { order in
      order.dropFirst().reduce(versions[order[0]]) { server, next in
        SyncMerge.merge(local: versions[next], base: base, incoming: server)
      }
    }
    // Then
    let expectedKept: Set = [
      Conflict(field: .reflection, text: "from A", stamp: stamp(3_000, deviceA)),
      Conflict(field: .reflection, text: "from B", stamp: stamp(3_000, deviceB)),
    ]
    for (order, result) in zip(orders, results) {
      #expect(result.session.reflection == "from C", "order \(order)")
      #expect(result.stamps[.reflection] == stamp(3_000, deviceC), "order \(order)")
      #expect(Set(result.session.conflicts) == expectedKept, "order \(order)")
      #expect(result.session.conflicts.count == 2, "order \(order)")
      #expect(result == results[0], "order \(order)")
    }
  }

  // MARK: - Session.resolve

  /// The session shown with a reflection "shown" and the two texts kept beside it.
  func withConflicts(reflection: String? = "shown") throws -> Session {
    var session = origin
    if let reflection { try session.apply(.reflection(reflection), now: created) }
    session.setConflicts([
      Conflict(field: .reflection, text: "newer", stamp: stamp(2_000, deviceC)),
      Conflict(field: .reflection, text: "older", stamp: stamp(1_500, deviceB)),
      Conflict(field: .dose, text: "1 g", stamp: stamp(1_600, deviceB)),
    ])
    return session
  }

  /// `.shown` drops the field's conflicts and keeps its text; other fields' stay.
  @Test func resolveShownKeepsTheText() throws {
    // Given
    var session = try withConflicts()
    // When
    try session.resolve(.reflection, keeping: .shown, now: created + 60)
    // Then
    #expect(session.reflection == "shown")
    #expect(session.conflicts.map(\.field) == [.dose])
    #expect(session.updated == created + 60)
  }

  /// `.kept` shows the newest kept text instead.
  @Test func resolveKeptTakesTheNewest() throws {
    // Given
    var session = try withConflicts()
    // When
    try session.resolve(.reflection, keeping: .kept, now: created + 60)
    // Then
    #expect(session.reflection == "newer")
    #expect(session.conflicts.map(\.field) == [.dose])
  }

  /// `.both` joins the shown text and the kept ones, oldest first, a blank line between.
  @Test func resolveBothJoinsWithABlankLine() throws {
    // Given
    var session = try withConflicts()
    // When
    try session.resolve(.reflection, keeping: .both, now: created + 60)
    // Then
    #expect(session.reflection == "shown\n\nolder\n\nnewer")
    #expect(session.conflicts.map(\.field) == [.dose])
  }

  /// A field with no conflicts is refused, naming it, and nothing changes.
  @Test func resolveWithoutConflictThrows() throws {
    // Given
    var session = try withConflicts()
    let before = session
    // Then
    #expect(throws: LifecycleError.noConflict(field: .music)) {
      try session.resolve(.music, keeping: .kept, now: created + 60)
    }
    #expect(session == before)
  }

  /// Keeping a kept reflection on a session that shows none completes it.
  @Test(arguments: [ConflictChoice.kept, .both])
  func resolvingIntoAReflectionCompletes(choice: ConflictChoice) throws {
    // Given
    var session = try withConflicts(reflection: nil)
    #expect(session.status == .needsReflection)
    // When
    try session.resolve(.reflection, keeping: choice, now: created + 60)
    // Then
    #expect(session.reflection == (choice == .kept ? "newer" : "older\n\nnewer"))
    #expect(session.status == .complete)
  }

  // MARK: - FieldCodec conflicts

  /// The value of a conflicts field as `FieldCodec.put(_:conflicts:into:)` writes it.
  func conflictsValue(_ conflicts: [Conflict]) -> [UInt8] {
    var out: [UInt8] = []
    FieldCodec.put(.conflicts, conflicts: conflicts, into: &out)
    return Array(out.dropFirst(5))  // tag (1) ‖ length (4)
  }

  func readConflicts(_ value: [UInt8]) throws -> [Conflict] {
    try value.withUnsafeBytes { try FieldCodec.conflicts($0) }
  }

  /// Kept conflicts written into a plaintext split and read back as they were.
  @Test func conflictsRoundTrip() throws {
    // Given
    let kept = [
      Conflict(field: .dose, text: "1 g", stamp: stamp(1_600, deviceB)),
      Conflict(field: .reflection, text: "older ✨\nline two", stamp: stamp(1_500, deviceC)),
    ]
    var plaintext: [UInt8] = [1]
    FieldCodec.put(.conflicts, conflicts: kept, into: &plaintext)
    // When
    let read = try plaintext.withUnsafeBytes { bytes in
      let fields = try FieldCodec.split(bytes, version: 1, allowed: FieldCodec.Tags([.conflicts]))
      return try FieldCodec.conflicts(fields[.conflicts])
    }
    // Then
    #expect(read == kept)
  }

  /// A conflict for a field that is not a text, a value cut short anywhere, and an empty list
  /// are all malformed.
  @Test func malformedConflictsAreRefused() {
    // Given
    let good = conflictsValue([Conflict(field: .music, text: "rain", stamp: stamp(1, deviceA))])
    let nonText = conflictsValue([Conflict(field: .date, text: "x", stamp: stamp(1, deviceA))])
    let mood = conflictsValue([Conflict(field: .moodAfter, text: "7", stamp: stamp(1, deviceA))])
    // Then
    #expect((try? readConflicts(good)) != nil)
    for bad in [nonText, mood, Array(good.dropLast()), Array(good.prefix(20)), []] {
      #expect(throws: FieldCodec.Malformed()) { try readConflicts(bad) }
    }
  }
}
