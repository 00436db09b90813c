/// Failures at the keyboard.
public enum TerminalError: Error, Equatable, Sendable {
  /// The person stopped: Ctrl-C, Ctrl-D at a prompt, or the terminal went away.
  case stopped
  /// A secret longer than is accepted was typed (most likely not a passphrase at all).
  case secretTooLong(maximum: Int)
}
