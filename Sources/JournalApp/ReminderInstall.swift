import Foundation

/// `journal reminders install`: a systemd user timer that runs `journal reminders run`
/// every 15 minutes, or, where systemd is not running, the crontab line that does.
public enum ReminderInstall {
  /// What was set up.
  public enum Outcome: Equatable {
    /// The unit files were written in `directory`; `enable` is the command that turns them on.
    case systemd(directory: String, enable: String)
    /// No systemd here: this is the crontab line to add.
    case cron(line: String)
  }

  public static func run(_ runtime: Runtime) throws -> Outcome {
    let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let command =
      "\(shellQuoted(binary)) reminders run --vault \(shellQuoted(try runtime.vaultPath()))"
    let environment = runtime.context.environment
    let hasSystemd =
      ExternalEditor.locate("systemctl", path: environment["PATH"] ?? "/usr/bin:/bin") != nil
      && FileManager.default.fileExists(atPath: "/run/systemd/system")
    guard hasSystemd, let home = environment["HOME"] else {
      return .cron(line: "*/15 * * * * \(command)")
    }
    let base =
      environment["XDG_CONFIG_HOME"].map { $0 + "/systemd/user" } ?? home + "/.config/systemd/user"
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    let service = """
      [Unit]
      Description=journal: reminders to reflect

      [Service]
      Type=oneshot
      ExecStart=\(command.replacingOccurrences(of: "%", with: "%%"))
      # A notification that can be answered waits in a helper of its own after the run.
      KillMode=process

      """
    let timer = """
      [Unit]
      Description=journal: look for due reminders every 15 minutes

      [Timer]
      OnCalendar=*:0/15
      Persistent=true

      [Install]
      WantedBy=timers.target

      """
    try service.write(
      toFile: base + "/journal-reminders.service", atomically: true, encoding: .utf8)
    try timer.write(toFile: base + "/journal-reminders.timer", atomically: true, encoding: .utf8)
    return .systemd(
      directory: base,
      enable:
        "systemctl --user daemon-reload && systemctl --user enable --now journal-reminders.timer")
  }

  /// A word safe to paste into a shell or a systemd command line.
  static func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
  }
}
