import Foundation
import Synchronization

/// What one line of `list` shows of a session, in 32 bytes: a list holds one for every
/// session it takes, and a million summaries (~136 bytes each, with their tags and notes'
/// moods) took 136 MB where these take 32.
public struct ListRow: Sendable {
  public let id: SessionID
  public let date: Date
  /// The treatment's place in the list's `ListRows.treatments`.
  public let treatment: UInt32
  /// A mood's value, 0 when not recorded.
  private let before: UInt8
  private let after: UInt8
  public let status: SessionStatus
  /// 1: added without the passphrase; 2: later fields added so.
  private let marks: UInt8

  /// The row of `summary`, whose treatment is at `treatment` in the list's treatments.
  public init(_ summary: SessionSummary, treatment: UInt32) {
    id = summary.id
    date = summary.date
    self.treatment = treatment
    before = UInt8(summary.moodBefore?.value ?? 0)
    after = UInt8(summary.moodAfter?.value ?? 0)
    status = summary.status
    marks = (summary.addedSealed != nil ? 1 : 0) | (summary.laterSealed != nil ? 2 : 0)
  }

  public var moodBefore: Int? { before == 0 ? nil : Int(before) }
  public var moodAfter: Int? { after == 0 ? nil : Int(after) }
  public var addedSealed: Bool { marks & 1 != 0 }
  public var laterSealed: Bool { marks & 2 != 0 }

  /// Whether it is planned at `now`: waiting, with its date still ahead.
  public func isPlanned(at now: Date) -> Bool {
    Lifecycle.isPlanned(status, date: date, now: now)
  }

  /// `SessionSummary.newestFirst`'s order: by date, newest first, then by id.
  public static func newestFirst(_ a: ListRow, _ b: ListRow) -> Bool {
    SessionSummary.newestFirst(a.date, a.id, b.date, b.id)
  }
}

/// The rows of a list and the treatments they name (the named ones first, in
/// `Treatment.known`'s order, then each custom name met, once).
public struct ListRows: Sendable {
  public var rows: [ListRow]
  public let treatments: [Treatment]

  public init(rows: [ListRow], treatments: [Treatment]) {
    self.rows = rows
    self.treatments = treatments
  }

  /// The rows of these summaries, in their order.
  public init(_ summaries: [SessionSummary]) {
    let names = TreatmentNames()
    rows = summaries.map { ListRow($0, treatment: names.index(of: $0.treatment)) }
    treatments = names.all
  }

  public func treatment(of row: ListRow) -> Treatment { treatments[Int(row.treatment)] }
}

/// The treatments a list's rows name, numbered as they are met on any of the threads that
/// open summaries: the named ones at their place in `Treatment.known`, each custom name once
/// after them (behind a lock, taken only for a custom name).
public final class TreatmentNames: Sendable {
  public init() {}

  private let custom = Mutex<(names: [Treatment], index: [String: UInt32])>(([], [:]))

  /// The number of `treatment` in `all`.
  public func index(of treatment: Treatment) -> UInt32 {
    if let known = Treatment.known.firstIndex(of: treatment) { return UInt32(known) }
    let name = treatment.customName ?? ""
    return custom.withLock { custom in
      if let index = custom.index[name] { return index }
      let index = UInt32(Treatment.known.count + custom.names.count)
      custom.names.append(treatment)
      custom.index[name] = index
      return index
    }
  }

  /// Every treatment numbered so far, by number.
  public var all: [Treatment] { Treatment.known + custom.withLock { $0.names } }
}
