import JournalDiagnostics
/// Where the vault is: `--vault`, else `JOURNAL_VAULT`, else
/// `$XDG_DATA_HOME/journal/vault.db`, else `~/.local/share/journal/vault.db`.
public enum VaultLocation {
  public static let fileName = "vault.db"

  public static func resolve(flag: String?, environment: [String: String]) throws(AppError)
    -> String
  {
    // An empty --vault (a script's unset variable) is refused rather than read as "the
    // default": it must never open a different journal than the one meant.
    if let flag {
      guard !flag.isEmpty else {
        throw .badSetting(name: "--vault", expected: "the path of a vault file")
      }
      return flag
    }
    if let path = environment["JOURNAL_VAULT"], !path.isEmpty { return path }
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
      return data + "/journal/" + fileName
    }
    guard let home = environment["HOME"], !home.isEmpty else { throw .noHome }
    return home + "/.local/share/journal/" + fileName
  }
}
