import JournalDiagnostics
/// Reading settings from the environment (and so from the settings file).
public enum Setting {
  /// Whether plain mode is asked for by the flag, the `plain` setting (JOURNAL_PLAIN) or the
  /// terminal type (`TERM=dumb`, or no TERM at all).
  public static func isPlain(flag: Bool, environment: [String: String]) throws(AppError) -> Bool {
    if flag { return true }
    if try Self.flag("JOURNAL_PLAIN", environment: environment) == true { return true }
    let term = environment["TERM"] ?? ""
    return term.isEmpty || term == "dumb"
  }

  /// Whether plain mode was asked for (`--plain`, the plain setting), not only implied by the
  /// terminal: then `list` and `show` are written for the ear.
  public static func isSpoken(flag: Bool, environment: [String: String]) throws(AppError) -> Bool {
    if flag { return true }
    return try Self.flag("JOURNAL_PLAIN", environment: environment) == true
  }

  /// `1/true/yes/on` or `0/false/no/off`; nil when unset or empty.
  public static func flag(_ name: String, environment: [String: String]) throws(AppError) -> Bool? {
    guard let value = environment[name]?.lowercased(), !value.isEmpty else { return nil }
    switch value {
    case "1", "true", "yes", "on": return true
    case "0", "false", "no", "off": return false
    default: throw .badSetting(name: name, expected: "on or off")
    }
  }
}
