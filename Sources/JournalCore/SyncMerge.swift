import Foundation

/// When, and on which device, a field was last written: a hybrid logical clock reading
/// (milliseconds and a counter) and the device's id. Stamps order every write of every device
/// the same way: by time, then counter, then device id. A write made after a device has seen
/// another's always orders after it, whatever the two wall clocks say (SECURITY.md, "Sync").
public struct SyncStamp: Hashable, Comparable, Sendable {
  public let time: UInt64
  public let counter: UInt32
  public let device: [UInt8]

  public static let deviceBytes = 16
  /// The stamp's length when written out: time (8) ‖ counter (4) ‖ device (16), big-endian.
  public static let bytes = 28
  /// The stamp of a field nobody has written since the vault began to sync.
  public static let none = SyncStamp(time: 0, counter: 0, device: [UInt8](repeating: 0, count: 16))

  public init(time: UInt64, counter: UInt32, device: [UInt8]) {
    precondition(device.count == Self.deviceBytes, "a device id is 16 bytes")
    self.time = time
    self.counter = counter
    self.device = device
  }

  public static func < (a: SyncStamp, b: SyncStamp) -> Bool {
    if a.time != b.time { return a.time < b.time }
    if a.counter != b.counter { return a.counter < b.counter }
    return a.device.lexicographicallyPrecedes(b.device)
  }

  /// The stamp written out (big-endian, so that bytes order as stamps do).
  public var encoded: [UInt8] {
    var out: [UInt8] = []
    out.reserveCapacity(Self.bytes)
    out.append(bigEndian: time)
    out.append(bigEndian: counter)
    out += device
    return out
  }

  /// A stamp from its 28 bytes.
  public init?(_ bytes: some Collection<UInt8>) {
    let bytes = Array(bytes)
    guard bytes.count == Self.bytes else { return nil }
    let stamp = bytes.withUnsafeBytes { raw in
      var reader = ByteReader(raw)
      return try? Self(reading: &reader)
    }
    guard let stamp else { return nil }
    self = stamp
  }

  /// The stamp at `reader`'s place, its 28 bytes read.
  public init(reading reader: inout ByteReader) throws(ByteReader.Short) {
    time = try reader.bigEndian(UInt64.self)
    counter = try reader.bigEndian(UInt32.self)
    device = Array(try reader.bytes(Self.deviceBytes))
  }
}

/// A hybrid logical clock (Kulkarni et al., 2014): close to the wall clock, never going back,
/// and always past every stamp it has seen. Pure: the time is handed in.
public struct HybridClock: Sendable, Equatable {
  public private(set) var time: UInt64
  public private(set) var counter: UInt32
  public let device: [UInt8]

  public init(time: UInt64, counter: UInt32, device: [UInt8]) {
    self.time = time
    self.counter = counter
    self.device = device
  }

  /// A stamp for a write made at `physical` (milliseconds), past everything seen.
  public mutating func stamp(physical: UInt64) -> SyncStamp {
    if physical > time {
      time = physical
      counter = 0
    } else if counter == .max {
      // Never wraps: past the last counter, the next millisecond.
      time += 1
      counter = 0
    } else {
      counter += 1
    }
    return SyncStamp(time: time, counter: counter, device: device)
  }

  /// Moves the clock past another reading of a clock (this device's own, kept apart).
  public mutating func witness(_ other: HybridClock) {
    witness(SyncStamp(time: other.time, counter: other.counter, device: device))
  }

  /// Moves the clock past a stamp seen from another device.
  public mutating func witness(_ stamp: SyncStamp) {
    if stamp.time > time || (stamp.time == time && stamp.counter > counter) {
      time = stamp.time
      counter = stamp.counter
    }
  }
}

/// What sync merges field by field. `closed` and `tags` are the things not fields of the
/// form: that the person closed the session without a reflection (the status is derived from
/// it and the reflection after every merge), and the session's tags (format 14; the whole
/// set, the later write winning). Notes are merged note by note (`NoteMerge`), not here.
public enum SyncField: UInt8, CaseIterable, Sendable {
  case date = 1, treatment, dose, intention, moodBefore, environment, music, moodAfter
  case reflection, closed
  case tags

  /// The fields of a server row or agreed record of layout 1 (before format 14): all but
  /// `tags`.
  public static let layoutOne = allCases.filter { $0 != .tags }

  /// The field of the form, nil for `closed` and `tags`.
  public var field: Field? {
    switch self {
    case .date: .date
    case .treatment: .treatment
    case .dose: .dose
    case .intention: .intention
    case .moodBefore: .moodBefore
    case .environment: .environment
    case .music: .music
    case .moodAfter: .moodAfter
    case .reflection: .reflection
    case .closed, .tags: nil
    }
  }

  public init?(_ field: Field) {
    guard let match = Self.allCases.first(where: { $0.field == field }) else { return nil }
    self = match
  }

  /// Texts the person wrote: when two devices wrote different ones at once, the one that
  /// loses is kept beside the winner as a conflict, never dropped.
  public var keepsLoser: Bool {
    switch self {
    case .dose, .intention, .environment, .music, .reflection: true
    case .date, .treatment, .moodBefore, .moodAfter, .closed, .tags: false
    }
  }
}

/// A text another device wrote at the same time as the one the session shows, kept so that
/// nothing written is lost (`journal resolve` picks or joins them).
public struct Conflict: Hashable, Sendable {
  public let field: Field
  public let text: String
  /// The stamp of the write that lost: also what names the conflict on every device.
  public let stamp: SyncStamp

  public init(field: Field, text: String, stamp: SyncStamp) {
    self.field = field
    self.text = text
    self.stamp = stamp
  }

  /// When the kept text was written.
  public var written: Date { Date(timeIntervalSince1970: Double(stamp.time) / 1000) }
}

/// Every field's stamp, for one session.
public typealias SyncStamps = [SyncField: SyncStamp]

extension Session {
  /// The value of `field` as bytes: equal bytes, equal values. What the base of a merge
  /// remembers (keyed-hashed) to tell whether a field changed here since the last sync.
  public func syncValue(_ field: SyncField) -> [UInt8] {
    var out: [UInt8] = []
    func text(_ value: String?) {
      guard let value else { return out.append(0) }
      out.append(1)
      out += Array(value.utf8)
    }
    switch field {
    case .date: FieldCodec.put(.date, time: date, into: &out)
    case .treatment:
      text(treatment.key)
      text(treatment.customName)
    case .dose: text(dose)
    case .intention: text(intention)
    case .moodBefore: out += moodBefore.map { [1, UInt8($0.value)] } ?? [0]
    case .environment: text(environment)
    case .music: text(music)
    case .moodAfter: out += moodAfter.map { [1, UInt8($0.value)] } ?? [0]
    case .reflection: text(reflection)
    case .closed: out.append(status == .closed ? 1 : 0)
    case .tags:
      for tag in tags {
        out.append(UInt8(tag.utf8.count))
        out += Array(tag.utf8)
      }
    }
    return out
  }

  /// The text of a field that keeps its loser; nil when it is empty.
  func keptText(_ field: SyncField) -> String? {
    switch field {
    case .dose: dose
    case .intention: intention
    case .environment: environment
    case .music: music
    case .reflection: reflection
    case .date, .treatment, .moodBefore, .moodAfter, .closed, .tags: nil
    }
  }

  /// Takes `field`'s value from `other`.
  mutating func take(_ field: SyncField, from other: Session) {
    switch field {
    case .date: date = other.date
    case .treatment: treatment = other.treatment
    case .dose: dose = other.dose
    case .intention: intention = other.intention
    case .moodBefore: moodBefore = other.moodBefore
    case .environment: environment = other.environment
    case .music: music = other.music
    case .moodAfter: moodAfter = other.moodAfter
    case .reflection: reflection = other.reflection
    case .closed: status = other.status == .closed ? .closed : .needsReflection
    case .tags: tags = other.tags
    }
  }

  /// The status that follows from the fields after a merge: a reflection from any device
  /// completes the session; without one it is closed if it was closed, else it waits.
  mutating func settleStatus(closed: Bool) {
    status = reflection != nil ? .complete : closed ? .closed : .needsReflection
  }

  /// Replaces the kept conflicts.
  public mutating func setConflicts(_ kept: [Conflict]) {
    conflicts = kept.sorted { ($0.field.rawValue, $0.stamp) < ($1.field.rawValue, $1.stamp) }
  }
}

/// The per-field merge of sync (SECURITY.md, "Sync"). Pure and deterministic: every device
/// that merges the same versions makes the same session.
public enum SyncMerge {
  /// One version of a session: the session and every field's stamp.
  public struct Version: Sendable, Equatable {
    public var session: Session
    public var stamps: SyncStamps

    public init(session: Session, stamps: SyncStamps) {
      self.session = session
      self.stamps = stamps
    }
  }

  /// What this device last agreed with the server for a session: each field's stamp and the
  /// ids of the conflicts it held.
  public struct Base: Sendable, Equatable {
    public var stamps: SyncStamps
    public var conflicts: Set<SyncStamp>

    public init(stamps: SyncStamps, conflicts: Set<SyncStamp>) {
      self.stamps = stamps
      self.conflicts = conflicts
    }
  }

  /// Merges the server's `incoming` version into the `local` one, both grown from `base`
  /// (nil when this device never synced the session). The server's version already holds
  /// everything the base does (each push merges all before it), so a field whose incoming
  /// stamp is the base's did not change there, and one whose local stamp is the base's did
  /// not change here. Where both changed, the later stamp wins; a text the loser wrote is
  /// kept as a conflict. Notes are merged note by note, whatever the stamps say (`NoteMerge`).
  public static func merge(local: Version, base: Base?, incoming: Version) -> Version {
    var merged = incoming
    let baseStamps = base?.stamps ?? [:]
    var kept: [SyncStamp: Conflict] = [:]
    // Conflicts: those either side holds, less those one side dropped since the base.
    let dropped = (base?.conflicts ?? []).subtracting(
      Set(local.session.conflicts.map(\.stamp))
    ).union(
      (base?.conflicts ?? []).subtracting(Set(incoming.session.conflicts.map(\.stamp))))
    for conflict in local.session.conflicts + incoming.session.conflicts
    where !dropped.contains(conflict.stamp) {
      kept[conflict.stamp] = conflict
    }
    var closed = incoming.session.status == .closed
    for field in SyncField.allCases {
      let mine = local.stamps[field] ?? .none
      let theirs = incoming.stamps[field] ?? .none
      let was = baseStamps[field]
      let winner: Session
      let loser: (session: Session, stamp: SyncStamp)?
      if mine == theirs || theirs == was && was != nil {
        // Unchanged there: ours stands (and is what both hold when the stamps agree).
        (winner, loser) = (local.session, nil)
        merged.stamps[field] = mine
      } else if mine == was && was != nil {
        (winner, loser) = (incoming.session, nil)
        merged.stamps[field] = theirs
      } else if theirs < mine {
        (winner, loser) = (local.session, (incoming.session, theirs))
        merged.stamps[field] = mine
      } else {
        (winner, loser) = (incoming.session, (local.session, mine))
        merged.stamps[field] = theirs
      }
      merged.session.take(field, from: winner)
      if field == .closed { closed = winner.status == .closed }
      if field.keepsLoser, let loser, let formField = field.field,
        let text = loser.session.keptText(field), text != winner.keptText(field),
        !kept.values.contains(where: { $0.field == formField && $0.text == text })
      {
        kept[loser.stamp] = Conflict(field: formField, text: text, stamp: loser.stamp)
      }
    }
    merged.session.settleStatus(closed: closed)
    merged.session.setConflicts(Array(kept.values))
    merged.session.setNotes(NoteMerge.merge(local.session.notes, incoming.session.notes))
    merged.session.settleTimes(with: local.session)
    return merged
  }
}

extension Session {
  /// After a merge: created the earlier, updated the later of the two, and the marks of
  /// what was added without the passphrase kept from either.
  mutating func settleTimes(with other: Session) {
    created = min(created, other.created)
    updated = max(updated, other.updated)
    addedSealed = addedSealed ?? other.addedSealed
    laterSealed = [laterSealed, other.laterSealed].compactMap { $0 }.max()
  }
}

/// What `journal resolve` keeps of a field with conflicts.
public enum ConflictChoice: String, CaseIterable, Sendable {
  /// The text the session shows; the kept ones go.
  case shown
  /// The kept text (the newest, if several) replaces the one shown.
  case kept
  /// Both, the kept ones after the one shown, a blank line between: nothing goes.
  case both
}

extension Session {
  /// Settles the conflicts of `field` as `choice` says, stamping `updated`. Throws when the
  /// field has none.
  public mutating func resolve(
    _ field: Field, keeping choice: ConflictChoice, now: Date
  ) throws {
    let mine = conflicts.filter { $0.field == field }.sorted { $0.stamp < $1.stamp }
    guard let newest = mine.last else { throw LifecycleError.noConflict(field: field) }
    let shown = text(of: field)
    let chosen: String? =
      switch choice {
      case .shown: shown
      case .kept: newest.text
      case .both:
        // A dose is one line: joined on it; the long texts a blank line apart.
        ([shown].compactMap { $0 } + mine.map(\.text)).joined(
          separator: field == .dose ? " / " : "\n\n")
      }
    guard chosen != shown, let raw = chosen else {
      conflicts.removeAll { $0.field == field }
      updated = max(now, updated)
      return
    }
    // Checked as typed text is (a length limit, no control characters): two texts joined
    // may be too long, and then nothing is settled.
    let value = try Text.normalise(raw, field: field, multiline: field != .dose) ?? raw
    conflicts.removeAll { $0.field == field }
    updated = max(now, updated)
    let change: Change =
      switch field {
      case .dose: .dose(value)
      case .intention: .intention(value)
      case .environment: .environment(value)
      case .music: .music(value)
      case .reflection: .reflection(value)
      case .date, .treatment, .moodBefore, .moodAfter, .notes:
        preconditionFailure("only texts keep conflicts")
      }
    try apply(change, now: now)
  }
}
