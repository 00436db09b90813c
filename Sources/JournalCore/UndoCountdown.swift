import Foundation

/// The undo countdown after a deletion, as a pure state machine over the instants and keys
/// it is handed (Hummingbird's connection state machines are the shape): each transition
/// returns what the caller does next. Tested by moving a clock, never by waiting.
public struct UndoCountdown: Sendable {
  /// What to do next.
  public enum Action: Equatable, Sendable {
    /// Show the whole seconds left (only when they changed since last shown).
    case show(secondsLeft: Int)
    /// Wait for a key until this instant, then tick again.
    case wait(until: Date)
    /// Restore the deletion (u).
    case undo
    /// End the countdown early, the deletion standing (Enter, Esc, q): `journal undo` still
    /// restores it within the window.
    case leave
    /// The window has closed: purge.
    case purge
  }

  /// When the window closes: the stored end of the deletion's window, never a fresh one, so
  /// the screen never promises more time than there is.
  public let deadline: Date
  private var shown: Int?

  public init(deadline: Date) {
    self.deadline = deadline
  }

  /// Time has passed: `now` is the instant read.
  public mutating func tick(at now: Date) -> Action {
    let remaining = deadline.timeIntervalSince(now)
    guard remaining > 0 else { return .purge }
    let whole = Int(remaining.rounded(.up))
    if whole != shown {
      shown = whole
      return .show(secondsLeft: whole)
    }
    // The next moment the whole seconds change.
    return .wait(until: deadline.addingTimeInterval(-Double(whole - 1)))
  }

  /// A key was pressed (its bytes: one key, a paste whole, none for a key the terminal does
  /// not name). Only u, pressed first, undoes: any other key, and a paste (`uptime` too),
  /// ends the countdown, the deletion standing, since the person has gone on to type
  /// something else (the u of "journal" in a command typed meanwhile is no undo).
  public func key(_ bytes: [UInt8]) -> Action {
    switch bytes {
    case [0x75], [0x55]: .undo  // u, U
    default: .leave  // Enter, Esc, q, Home, a paste, anything else
    }
  }
}
