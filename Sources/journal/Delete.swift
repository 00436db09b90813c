import ArgumentParser
import Foundation
import JournalApp
import JournalCore
import JournalStore
import JournalTerminal

extension Journal {
  /// `journal delete <id>…`: confirm, delete, and offer a moment to undo.
  struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "delete",
      abstract: "Delete sessions, with a few seconds to undo.",
      discussion: """
        Asks for confirmation (--yes skips it), then, in a terminal, counts down: press u to \
        undo, Enter or Esc to finish. From any terminal, "journal undo" restores the deletion \
        while its window is open (10 s; JOURNAL_UNDO_WINDOW sets another). After that the \
        sessions are purged from the vault file for good.
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: "The sessions' ids, or any unique start of each.")
    var ids: [String]

    @Flag(help: "Delete without asking for confirmation.")
    var yes = false

    func run() throws {
      let runtime = try Runtime(options)
      let window = try UndoWindow.duration(environment: runtime.context.environment)
      if !yes && runtime.terminal == nil { throw AppError.confirmationNeeded }
      let journal = try runtime.openVault()
      var targets: [SessionID] = []
      for text in ids {
        let id = try journal.resolve(text)
        if !targets.contains(id) { targets.append(id) }
      }
      let shown = try targets.map { try journal.displayID($0) }
      if !yes, let terminal = runtime.terminal {
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
          throw ExitCodeOnly(code: .cancelled)
        }
      }
      let deletion = try journal.delete(targets, window: window)
      let what = targets.count == 1 ? "session \(shown[0])" : "\(targets.count) sessions"
      if let terminal = runtime.terminal, window > 0 {
        try Countdown(terminal: terminal, journal: journal, deletion: deletion, what: what).run()
      } else {
        Report.note(
          #"deleted \#(what); "journal undo" restores it within \#(Self.describe(window))"#)
      }
    }

    static func describe(_ seconds: TimeInterval) -> String {
      seconds < 120 ? "\(Int(seconds)) s" : "\(Int(seconds / 60)) min"
    }
  }

  /// `journal undo`: restores the most recent deletion while its window is open.
  struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "undo",
      abstract: "Restore the most recent deletion, within its undo window.",
      discussion: "Needs no passphrase: the sealed sessions are moved back as they were.")

    @OptionGroup var options: GlobalOptions

    func run() throws {
      let runtime = try Runtime(options)
      let path = try runtime.vaultPath()
      guard let restored = try JournalVault.undo(at: path, context: runtime.context) else {
        throw AppError.nothingToUndo
      }
      let shortIDs = restored.ids.map { String($0.prefix(8)) }
      let what =
        shortIDs.count == 1
        ? "session \(shortIDs[0])"
        : "\(shortIDs.count) sessions: " + shortIDs.joined(separator: ", ")
      Report.note("restored \(what)")
    }
  }
}

/// The visible countdown after a deletion: "Deleted. Press u to undo (10 s)", redrawn in
/// place each second; u undoes, Enter or Esc ends it early. When it runs out, the deletion
/// is purged at once.
struct Countdown {
  let terminal: TTY
  let journal: JournalVault
  let deletion: Deletion
  let what: String

  func run() throws {
    // The stored end of the window, not a fresh one: the screen never promises more time.
    let deadline = deletion.purgeAfter
    let window = max(0, deadline.timeIntervalSinceNow)
    let redraw = !terminal.presentation.plain
    if !redraw {
      terminal.writeLine(
        "Deleted \(what). Press u within \(Int(window.rounded())) s to undo it, or Enter to go on.")
    }
    while true {
      let remaining = deadline.timeIntervalSinceNow
      guard remaining > 0 else { break }
      if redraw {
        terminal.write(
          "\r\u{1B}[KDeleted \(what). Press u to undo (\(Int(remaining.rounded(.up))) s)")
      }
      let tick = remaining - (remaining.rounded(.up) - 1)
      guard let key = try terminal.waitForKey(timeout: min(remaining, max(tick, 0.05))) else {
        continue
      }
      if key == [0x75] || key == [0x55] {  // u, U
        guard try journal.undo(deletion) != nil else {
          terminal.write(redraw ? "\r\u{1B}[K" : "")
          terminal.writeLine("The undo window had just closed; \(what) stays deleted.")
          throw AppError.nothingToUndo
        }
        terminal.write(redraw ? "\r\u{1B}[KRestored \(what).\n" : "Restored \(what).\n")
        return
      }
      if key == [0x0D] || key == [0x0A] || key == [0x1B] || key == [0x71] {  // Enter, Esc, q
        terminal.write(redraw ? "\r\u{1B}[K" : "")
        terminal.writeLine(
          #"Deleted \#(what). "journal undo" restores it until the window closes."#)
        return
      }
    }
    terminal.write(redraw ? "\r\u{1B}[KDeleted \(what).\n" : "Deleted.\n")
    try journal.purgeExpired()
  }
}
