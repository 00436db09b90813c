import Foundation
import JournalCore
import JournalStore
import JournalTerminal

/// `journal delete` and `journal undo`: confirm, delete, count down with a way back, and
/// restore within the window.
public enum DeleteSessions {
  /// How a deletion ended, for the command line to say.
  public enum Outcome: Equatable {
    /// The person said no at the confirmation: nothing was deleted.
    case declined
    /// Deleted; the countdown ran on the terminal and said everything.
    case countedDown
    /// Deleted without a countdown (no terminal, or no window): `what` is restorable with
    /// `journal undo` for `window` seconds.
    case deleted(what: String, window: TimeInterval)
  }

  /// Deletes the sessions whose ids start with `texts`, after asking on the terminal unless
  /// `confirmed` (--yes); then, on a terminal, the countdown.
  public static func run(_ texts: [String], confirmed: Bool, _ runtime: Runtime) throws
    -> Outcome
  {
    let window = try UndoWindow.duration(environment: runtime.context.environment)
    if !confirmed && runtime.terminal == nil { throw AppError.confirmationNeeded }
    let journal = try runtime.openVault()
    var targets: [SessionID] = []
    for text in texts {
      let id = try journal.resolve(text)
      if !targets.contains(id) { targets.append(id) }
    }
    let shown = try targets.map { try journal.displayID($0) }
    if !confirmed, let terminal = runtime.terminal {
      let format = DisplayFormat(timeZone: runtime.context.timeZone)
      for (id, label) in zip(targets, shown) {
        let session = try journal.session(id)
        terminal.writeLine(
          "  \(label)  \(format.dateTime(session.date))  \(session.treatment.displayName)")
      }
      let question =
        targets.count == 1 ? "Delete this session?" : "Delete these \(targets.count) sessions?"
      guard
        try Forms(terminal: terminal, context: runtime.context).confirm(question, default: false)
      else {
        terminal.writeLine("Nothing was deleted.")
        return .declined
      }
    }
    let deletion = try journal.delete(targets, window: window)
    let what = targets.count == 1 ? "session \(shown[0])" : counted(targets.count, "session")
    guard let terminal = runtime.terminal, window > 0 else {
      return .deleted(what: what, window: window)
    }
    try DeletionCountdown(
      terminal: terminal, journal: journal, deletion: deletion, what: what,
      now: runtime.context.now
    ).run()
    return .countedDown
  }

  /// Restores the most recent deletion while its window is open; the ids restored.
  public static func undo(_ runtime: Runtime) throws -> [SessionID] {
    guard
      let restored = try JournalVault.undo(at: try runtime.vaultPath(), context: runtime.context)
    else { throw AppError.nothingToUndo }
    return restored.ids
  }
}

/// The visible countdown after a deletion: "Deleted. Press u to undo (10 s)", redrawn in
/// place each second (one line in plain mode); u undoes, Enter or Esc ends it early. When
/// the window closes, the deletion is purged at once. The timing is UndoCountdown's; this
/// only carries out its actions.
struct DeletionCountdown {
  let terminal: TTY
  let journal: JournalVault
  let deletion: Deletion
  let what: String
  let now: Now

  func run() throws {
    var countdown = UndoCountdown(deadline: deletion.purgeAfter)
    let redraw = !terminal.presentation.plain
    let clear = redraw ? "\r\u{1B}[K" : ""
    if !redraw {
      let window = max(0, deletion.purgeAfter.timeIntervalSince(now()))
      terminal.writeLine(
        "Deleted \(what). Press u within \(Int(window.rounded())) s to undo it, or Enter to go on.")
    }
    while true {
      var action = countdown.tick(at: now())
      if case .wait(let until) = action {
        let timeout = max(until.timeIntervalSince(now()), 0.01)
        guard let key = try terminal.waitForKey(timeout: timeout), let pressed = countdown.key(key)
        else { continue }
        action = pressed
      }
      switch action {
      case .show(let seconds):
        if redraw { terminal.write("\(clear)Deleted \(what). Press u to undo (\(seconds) s)") }
      case .wait:
        continue
      case .undo:
        guard try journal.undo(deletion) != nil else {
          terminal.write(clear)
          terminal.writeLine("The undo window had just closed; \(what) stays deleted.")
          throw AppError.nothingToUndo
        }
        terminal.write(clear)
        terminal.writeLine("Restored \(what).")
        return
      case .leave:
        terminal.write(clear)
        terminal.writeLine(
          #"Deleted \#(what). "journal undo" restores it until the window closes."#)
        return
      case .purge:
        terminal.write(clear)
        terminal.writeLine(redraw ? "Deleted \(what)." : "Deleted.")
        try journal.purgeExpired()
        return
      }
    }
  }
}
