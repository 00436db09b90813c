import Glibc

/// How output may look: plain (line by line, for screen readers and `TERM=dumb`), with or
/// without colour, and how wide the terminal is.
///
/// Plain mode means no colour, no emoji, no cursor movement and no redraws: every prompt and
/// result reads line by line. It is chosen by `--plain`, the `plain` setting
/// (`JOURNAL_PLAIN`), or a terminal that cannot do more (`TERM=dumb`, or no `TERM` at all).
/// Colour also needs `NO_COLOR` to be unset or empty.
public struct Presentation: Sendable, Equatable {
  public var plain: Bool
  /// Plain mode asked for by the person (`--plain`, the plain setting), as a screen reader
  /// user does, rather than by a terminal that can do little: `list` and `show` are then
  /// written for the ear (dates in words, ids spelled out, no symbol read as one).
  public var spoken: Bool
  public var colour: Bool
  /// Columns to wrap to; nil when the output is not a terminal (a pipe or a file keeps
  /// every line whole, for programs).
  public var width: Int?

  public init(plain: Bool, colour: Bool, width: Int?, spoken: Bool = false) {
    self.plain = plain || spoken
    self.spoken = spoken
    self.colour = colour && !plain && !spoken
    self.width = width.map { max($0, Self.narrowest) }
  }

  /// The narrowest width laid out for; below it lines simply wrap.
  public static let narrowest = 20

  /// Plain, no colour, unwrapped: what a pipe gets.
  public static let plainText = Presentation(plain: true, colour: false, width: nil)

  /// Whether colour is allowed at all (`NO_COLOR` unset or empty).
  public static func colourAllowed(environment: [String: String]) -> Bool {
    environment["NO_COLOR"].map(\.isEmpty) ?? true
  }

  /// The width of the terminal on `fd`: `COLUMNS` when set, else the terminal's own size;
  /// nil when `fd` is not a terminal.
  public static func width(of fd: Int32, environment: [String: String]) -> Int? {
    guard isatty(fd) != 0 else { return nil }
    if let columns = environment["COLUMNS"].flatMap({ Int($0) }), columns > 0 { return columns }
    var size = winsize()
    guard ioctl(fd, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }
}
