import Foundation
import JournalCore

/// `journal close` and `journal reopen`: a session left without a reflection, on purpose,
/// and made to wait again. Closing completes it (the specification's "reflections saved or
/// dismissed"): its reminder goes, `list --needs-reflection` and the reminders no longer
/// count it, and a reflection written later still completes it. Reopening makes it wait
/// again, with a reminder for tomorrow.
public enum CloseSession {
  /// What closing or reopening left.
  public struct Outcome: Sendable {
    public let session: Session
    public let shownID: String
    /// When the reopened session's reminder comes; nil after closing.
    public let reminder: Date?
    /// Reopened with its date still ahead: planned, so waiting only once the date has passed.
    public var planned = false
  }

  public static func close(_ text: String, _ runtime: Runtime) throws -> Outcome {
    let journal = try runtime.openVault(check: .point)
    let id = try journal.resolve(text)
    let session = try journal.apply(.close, to: id)
    return Outcome(session: session, shownID: try journal.displayID(id), reminder: nil)
  }

  public static func reopen(_ text: String, _ runtime: Runtime) throws -> Outcome {
    let journal = try runtime.openVault(check: .point)
    let id = try journal.resolve(text)
    let session = try journal.apply(.reopen, to: id)
    // A session reopened with a date still ahead is planned: no reminder before it happens.
    let planned = journal.isPlanned(session)
    let due = planned ? nil : try runtime.reminders(journal.file).set(id, .tomorrow)
    return Outcome(
      session: session, shownID: try journal.displayID(id), reminder: due, planned: planned)
  }
}
