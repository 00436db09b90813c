import Foundation
import JournalCore
import JournalDrafts
import JournalTerminal

/// What `journal new` finds of earlier, unfinished drafts: the ones to offer, and a calm
/// one-line notice for each one dropped or left alone.
public struct DraftRecovery {
  /// Readable drafts to offer, newest first.
  public let offers: [StoredDraft]
  /// One line each, for the person; never any draft content.
  public let notices: [String]

  /// Scans the drafts, dropping the unreadable, the stale and those already saved.
  public static func run(
    store: DraftStore, journal: JournalVault, now: Date, maximumAge: TimeInterval,
    format: DisplayFormat
  ) throws -> DraftRecovery {
    var offers: [StoredDraft] = []
    var notices: [String] = []
    for entry in try store.scan() {
      switch entry.state {
      case .inUse:
        notices.append("an unfinished draft is open in another journal window; it is left alone")
      case .unreadable:
        try store.discard(entry.id)
        notices.append(
          "an unfinished draft could not be read (damaged, or from another vault) and was removed")
      case .newer(let version):
        notices.append(
          "an unfinished draft of format \(version) needs a newer journal; it is left alone")
      case .ready(let stored) where stored.draft.reflection != nil:
        // A reflection being written for a saved session: `journal reflect` offers it.
        if now.timeIntervalSince(stored.updated) > maximumAge {
          try store.discard(entry.id)
          notices.append(
            "an unfinished reflection from \(format.dateTime(stored.started)) was older than "
              + "\(describe(maximumAge)) and was removed")
        } else {
          let shown = (try? journal.displayID(entry.id)) ?? entry.id.short
          notices.append(
            #"an unfinished reflection is kept; "journal reflect \#(shown)" takes it up again"#)
        }
      case .ready(let stored):
        if try journal.contains(entry.id) {
          // Saved already; the crash came between the vault write and the draft's removal.
          try store.discard(entry.id)
        } else if now.timeIntervalSince(stored.updated) > maximumAge {
          try store.discard(entry.id)
          notices.append(
            "an unfinished draft from \(format.dateTime(stored.started)) was older than "
              + "\(describe(maximumAge)) and was removed")
        } else {
          offers.append(stored)
        }
      }
    }
    offers.sort { $0.updated > $1.updated }
    return DraftRecovery(offers: offers, notices: notices)
  }

  static func describe(_ age: TimeInterval) -> String {
    if age >= 86400, age.truncatingRemainder(dividingBy: 86400) == 0 {
      let days = Int(age / 86400)
      return days == 1 ? "1 day" : "\(days) days"
    }
    if age >= 3600, age.truncatingRemainder(dividingBy: 3600) == 0 { return "\(Int(age / 3600)) h" }
    if age >= 60, age.truncatingRemainder(dividingBy: 60) == 0 { return "\(Int(age / 60)) min" }
    return "\(Int(age)) s"
  }
}
