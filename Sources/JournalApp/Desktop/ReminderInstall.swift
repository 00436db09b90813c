import Foundation

/// `journal reminders install`: a systemd user timer that runs `journal reminders run`
/// every 15 minutes, or, where systemd is not running, the crontab line that does. The
/// Debian package ships the same units for its own binary (Packaging/, made by `units`).
public enum ReminderInstall {
  /// What was set up.
  public enum Outcome: Equatable {
    /// The unit files were written in `directory`; `enable` is the command that turns them on.
    case systemd(directory: String, enable: String)
    /// The package's units in `directory` already run this binary on this journal: nothing
    /// was written; `enable` is the command that turns them on.
    case packaged(directory: String, enable: String)
    /// No systemd here: this is the crontab line to add.
    case cron(line: String)
  }

  /// Where the Debian package puts the binary and its units (Scripts/package).
  static let packagedBinary = "/usr/bin/journal"
  static let packagedUnits = "/usr/lib/systemd/user"

  public static func run(_ runtime: Runtime) throws -> Outcome {
    let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let vault = try runtime.vaultPath()
    let command = "\(shellQuoted(binary)) reminders run --vault \(shellQuoted(vault))"
    let environment = runtime.context.environment
    let hasSystemd =
      ExternalEditor.locate("systemctl", path: environment["PATH"] ?? "/usr/bin:/bin") != nil
      && FileManager.default.fileExists(atPath: "/run/systemd/system")
    guard hasSystemd, let home = environment["HOME"] else {
      return .cron(line: "*/15 * * * * \(command)")
    }
    let base =
      environment["XDG_CONFIG_HOME"].map { $0 + "/systemd/user" } ?? home + "/.config/systemd/user"
    let enable =
      "systemctl --user daemon-reload && systemctl --user enable --now journal-reminders.timer"
    if usesPackagedUnits(binary: binary, vault: vault, home: home, userUnits: base) {
      return .packaged(directory: packagedUnits, enable: enable)
    }
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    let units = units(command: command)
    try units.service.write(
      toFile: base + "/journal-reminders.service", atomically: true, encoding: .utf8)
    try units.timer.write(
      toFile: base + "/journal-reminders.timer", atomically: true, encoding: .utf8)
    return .systemd(directory: base, enable: enable)
  }

  /// Whether the package's units already do what `install` would write: `binary` is the
  /// packaged one, its units are installed, none of the person's own (in `userUnits`, which
  /// systemd prefers) shadows them, and `vault` is the journal the packaged service opens —
  /// the default place under `home`, as a user manager (HOME set, no XDG_DATA_HOME) finds it.
  static func usesPackagedUnits(
    binary: String, vault: String, home: String, userUnits: String,
    unitsDirectory: String = packagedUnits,
    exists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) }
  ) -> Bool {
    let names = ["journal-reminders.service", "journal-reminders.timer"]
    let standard = { (path: String) in URL(fileURLWithPath: path).standardizedFileURL.path }
    return binary == packagedBinary
      && standard(vault) == standard(home + "/.local/share/journal/vault.db")
      && names.allSatisfy { exists(unitsDirectory + "/" + $0) }
      && !names.contains { exists(userUnits + "/" + $0) }
  }

  /// The service and timer that run `command` (a shell-quoted command line) every 15
  /// minutes, catching up after sleep.
  static func units(command: String) -> (service: String, timer: String) {
    let service = """
      [Unit]
      Description=journal: reminders to reflect
      Documentation=man:journal(1)

      [Service]
      Type=oneshot
      ExecStart=\(command.replacingOccurrences(of: "%", with: "%%"))
      # A notification that can be answered waits in a helper of its own after the run.
      KillMode=process

      """
    let timer = """
      [Unit]
      Description=journal: look for due reminders every 15 minutes
      Documentation=man:journal(1)

      [Timer]
      OnCalendar=*:0/15
      Persistent=true

      [Install]
      WantedBy=timers.target

      """
    return (service, timer)
  }

  /// A word safe to paste into a shell or a systemd command line.
  static func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }
}
