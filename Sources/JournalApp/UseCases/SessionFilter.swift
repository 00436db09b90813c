import Foundation
import JournalCore
import JournalDiagnostics

/// Which sessions `list`, `export` and `search` take: one definition, one parser
/// (`SessionFilter.parse`), one meaning. Everything it looks at is in a session's summary, so
/// it is applied before any body is opened.
public struct SessionFilter: Sendable {
  /// Which sessions by where they stand at `now`.
  public enum Standing: Sendable, Equatable {
    /// Of this status; waiting (`needsReflection`) means dated now or before.
    case status(SessionStatus)
    /// Waiting with a date still ahead (`Lifecycle.isPlanned`).
    case planned
    /// Those dated now or before: the sessions that have happened (a planned one has not,
    /// nor one reflected on, from a sealed reflection, before its date).
    case happened
  }

  /// The time that decides which sessions are planned.
  public var now: Date
  public var since: Date?
  public var until: Date?
  public var standing: Standing?
  public var treatment: String?
  /// With `treatment` "other": only the custom treatment of this name (any case).
  public var treatmentName: String?
  /// Only the newest this many of those it takes.
  public var limit: Int?
  /// Only sessions carrying every one of these tags (normalised: `Tag`).
  public var tags: [String] = []

  public init(
    now: Date, since: Date? = nil, until: Date? = nil, standing: Standing? = nil,
    treatment: String? = nil
  ) {
    self.now = now
    self.since = since
    self.until = until
    self.standing = standing
    self.treatment = treatment
  }

  /// Whether it takes every session (it may still keep only the newest `limit`).
  public var takesEvery: Bool {
    since == nil && until == nil && standing == nil && treatment == nil && treatmentName == nil
      && tags.isEmpty
  }

  /// Whether only sessions stored as waiting can match (so only those need reading).
  public var waitingOnly: Bool { standing == .planned || standing == .status(.needsReflection) }

  public func includes(_ s: SessionSummary) -> Bool {
    if let since, s.date < since { return false }
    if let until, s.date > until { return false }
    switch standing {
    case nil: break
    case .planned: if !s.isPlanned(at: now) { return false }
    case .happened: if s.date > now { return false }
    case .status(let status): if s.status != status || s.isPlanned(at: now) { return false }
    }
    if let treatment, s.treatment.key != treatment { return false }
    for tag in tags where !s.tags.contains(tag) { return false }
    if let treatmentName,
      s.treatment.customName?.lowercased() != treatmentName.lowercased()
    {
      return false
    }
    return true
  }

  /// The filter the command line's texts ask for: dates as `DateInput` reads them (a whole
  /// day, `today`, `yesterday` or a bare date, means all of that day: from its start for
  /// `since`, to its end for `until`), a standing, a treatment key ("other" takes every custom
  /// treatment, "other:San Pedro" only that one), tags (every one of them), and how many of
  /// the newest. A range that
  /// ends before it starts is refused: nothing could match it.
  public static func parse(
    since: String?, until: String?, standing: Standing?, treatment: String?, limit: Int?,
    tags: [String] = [], _ runtime: Runtime
  ) throws -> SessionFilter {
    let now = runtime.context.now()
    let dates = DateInput(timeZone: runtime.context.timeZone)
    var filter = SessionFilter(now: now, standing: standing)
    if let since {
      filter.since = try dates.dayStart(since, now: now) ?? dates.parseInstant(since, now: now)
    }
    if let until {
      if let start = try dates.dayStart(until, now: now) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = runtime.context.timeZone
        // A day is not always 24 h (daylight saving): the end is the next midnight.
        let nextDay = calendar.date(byAdding: .day, value: 1, to: start) ?? start + 86400
        filter.until = nextDay.addingTimeInterval(-0.001)
      } else {
        filter.until = try dates.parseInstant(until, now: now)
      }
    }
    if let start = filter.since, let end = filter.until, start > end {
      throw AppError.emptyDateRange
    }
    if let treatment {
      let key = treatment.lowercased()
      if key == "other" {
        filter.treatment = key
      } else {
        let parsed = try Treatment.parse(treatment)
        filter.treatment = parsed.key
        filter.treatmentName = parsed.customName
      }
    }
    filter.tags = Array(Set(try tags.map(Tag.normalise))).sorted()
    if let limit {
      guard limit >= 1 else { throw AppError.badLimit }
      filter.limit = limit
    }
    return filter
  }
}
