import Foundation
import JournalCore
import JournalDiagnostics
import JournalStorage
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
    // Read only where the pause can come: a deletion final at once, asked at a terminal.
    let coolingOff =
      window == 0 && !confirmed && runtime.terminal != nil
      ? try CoolingOffPause.window(runtime) : 0
    if !confirmed && runtime.terminal == nil { throw AppError.confirmationNeeded(what: "deleting") }
    let journal = try runtime.openVault(check: .point)
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
        try Forms(terminal: terminal, context: runtime.context).confirm(
          question, default: false, destructive: true)
      else { return .declined }
      // With no undo window the deletion is final at once: right after a session, a pause.
      if window == 0 {
        do {
          try CoolingOffPause.check(
            .deleteForGood(sessions: targets.count), window: coolingOff, journal: journal,
            confirmed: false, runtime)
        } catch AppError.declined {
          return .declined
        }
      }
    }
    let deletion = try journal.delete(targets, window: window)
    let what = targets.count == 1 ? "session \(shown[0])" : counted(targets.count, "session")
    guard let terminal = runtime.terminal, window > 0 else {
      return .deleted(what: what, window: window)
    }
    try DeletionCountdown(
      terminal: terminal, what: what, undoCommand: #""journal undo""#,
      deadline: deletion.purgeAfter, now: runtime.context.now,
      isPending: { try journal.isPending(deletion) },
      undo: { try journal.undo(deletion) != nil }, purge: { try journal.purgeExpired() }
    ).run()
    return .countedDown
  }

  /// Restores the most recent deletion while its window is open: the ids restored, those
  /// whose trash rows were planted and stay, and those restored without a planted reminder.
  public static func undo(_ runtime: Runtime) throws -> Vault.Restored {
    guard
      let restored = try JournalVault.undo(at: try runtime.vaultPath(), context: runtime.context),
      !(restored.ids.isEmpty && restored.stayed.isEmpty)
    else { throw AppError.nothingToUndo }
    return restored
  }
}

/// The visible countdown after a deletion: "Deleted. Press u to undo (10 s)", redrawn in
/// place each second (one line in plain mode, and a shorter line where the terminal is too
/// narrow for the whole one, since a wrapped line cannot be redrawn in place); u undoes, Enter
/// or Esc ends it early. When the window closes, the deletion is purged at once. A deletion
/// undone elsewhere (`journal undo` in another shell) ends the countdown within a second, and
/// an interruption leaves a line that says how to undo, never a stale count. The timing is
/// UndoCountdown's; this only carries out its actions. A session's deletion and a note's
/// (`journal note ID --delete N`) count down alike.
struct DeletionCountdown {
  let terminal: TTY
  let what: String
  /// The command that restores it from another shell, quoted.
  let undoCommand: String
  let deadline: Date
  let now: Now
  /// Whether the deletion still stands (not undone elsewhere, not purged).
  let isPending: () throws -> Bool
  /// Restores it; false when it no longer could be.
  let undo: () throws -> Bool
  let purge: () throws -> Void

  func run() throws {
    var countdown = UndoCountdown(deadline: deadline)
    let redraw = !terminal.presentation.plain
    let clear = redraw ? "\r\u{1B}[K" : ""
    let standing = "Deleted \(what). \(undoCommand) restores it until the window closes."
    terminal.setInterruptNote(redraw ? clear + standing + "\n" : "\n" + standing + "\n")
    defer { terminal.setInterruptNote(nil) }
    if !redraw {
      let window = max(0, deadline.timeIntervalSince(now()))
      terminal.writeLine(
        "Deleted \(what). Press u within \(Int(window.rounded())) s to undo it, or Enter to go on.")
    }
    while true {
      var action = countdown.tick(at: now())
      if case .wait(let until) = action {
        // At most a second between looks at the vault, so an undo from another shell is
        // seen at once.
        let timeout = min(max(until.timeIntervalSince(now()), 0.01), 1)
        guard let key = try terminal.waitForKey(timeout: timeout) else {
          if try !isPending() { return restoredElsewhere(clear) }
          continue
        }
        action = countdown.key(key)
      }
      switch action {
      case .show(let seconds):
        guard try isPending() else { return restoredElsewhere(clear) }
        if redraw { terminal.write(clear + line(secondsLeft: seconds)) }
      case .wait:
        continue
      case .undo:
        guard try undo() else {
          // Not in the trash: restored by someone else while the window is open, or the
          // window closed just now.
          if now() < deadline { return restoredElsewhere(clear) }
          terminal.write(clear)
          terminal.writeLine("The undo window had just closed; \(what) stays deleted.")
          throw AppError.nothingToUndo
        }
        terminal.write(clear)
        terminal.writeLine("Restored \(what).")
        return
      case .leave:
        guard try isPending() else { return restoredElsewhere(clear) }
        terminal.write(clear)
        terminal.writeLine(standing)
        return
      case .purge:
        guard try isPending() else { return restoredElsewhere(clear) }
        terminal.write(clear)
        terminal.writeLine(redraw ? "Deleted \(what)." : "Deleted.")
        try purge()
        return
      }
    }
  }

  /// The countdown line, as long as fits on one line of the terminal.
  func line(secondsLeft seconds: Int) -> String {
    let lines = [
      "Deleted \(what). Press u to undo (\(seconds) s)",
      "Deleted. Press u to undo (\(seconds) s)",
      "u undoes (\(seconds) s)",
    ]
    guard let width = terminal.presentation.width else { return lines[0] }
    return lines.first { $0.count < width } ?? lines[lines.count - 1]
  }

  private func restoredElsewhere(_ clear: String) {
    terminal.write(clear)
    terminal.writeLine("Restored \(what): \(undoCommand) ran elsewhere.")
  }
}
