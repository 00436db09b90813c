/// Where the vault is: `--vault`, else `JOURNAL_VAULT`, else
/// `$XDG_DATA_HOME/journal/vault.db`, else `~/.local/share/journal/vault.db`.
public enum VaultLocation {
  public static let fileName = "vault.db"

  public static func resolve(flag: String?, environment: [String: String]) throws(AppError)
    -> String
  {
    if let flag, !flag.isEmpty { return flag }
    if let path = environment["JOURNAL_VAULT"], !path.isEmpty { return path }
    if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
      return data + "/journal/" + fileName
    }
    guard let home = environment["HOME"], !home.isEmpty else { throw .noHome }
    return home + "/.local/share/journal/" + fileName
  }
}
