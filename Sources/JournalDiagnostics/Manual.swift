/// Where a person reads more about journal: its manual page (Docs/journal.1, which
/// Scripts/install puts where `man` finds it). The one place that names it, for `--help` and
/// the hints; nothing a person reads points into the source tree.
public enum Manual {
  /// The command that shows the page, quoted as messages quote a command to run.
  public static let pointer = #""man journal""#
}
