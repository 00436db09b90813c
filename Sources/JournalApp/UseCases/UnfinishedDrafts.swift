import Foundation
import JournalCore
import JournalDrafts

/// The use cases of `journal drafts`: what is unfinished, and discarding one.
public enum UnfinishedDrafts {
  /// One unfinished draft, without its content: when, and how much is answered.
  public struct Item: Sendable {
    public let id: SessionID
    public let started: Date
    public let updated: Date
    public let fieldsAnswered: Int
  }

  /// The drafts of the vault after recovery (the unreadable, stale and saved ones dropped),
  /// and the one-line notices about those dropped.
  public static func list(_ runtime: Runtime) throws -> (items: [Item], notices: [String]) {
    let journal = try runtime.openVault()
    let (_, recovery) = try runtime.recoverDrafts(journal)
    let items = recovery.offers.map {
      Item(
        id: $0.draft.id, started: $0.started, updated: $0.updated, fieldsAnswered: $0.filledCount)
    }
    return (items, recovery.notices)
  }

  /// Removes the draft whose id starts with `text`, for good; returns its id.
  public static func discard(_ text: String, _ runtime: Runtime) throws -> SessionID {
    let journal = try runtime.openVault()
    let store = try runtime.drafts(journal)
    guard let prefix = SessionID.normalisedPrefix(text) else {
      throw DraftError.noMatch(prefix: text)
    }
    let target = try store.resolve(prefix, among: try store.scan())
    try store.discard(target)
    return target
  }
}
