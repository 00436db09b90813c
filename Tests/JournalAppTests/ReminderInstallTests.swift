import Foundation
import Testing

@testable import JournalApp

struct ReminderInstallTests {
  static let packaging = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Packaging")

  /// The units the Debian package ships are the ones `reminders install` writes, for the
  /// packaged binary on the default journal: one definition, kept in step.
  @Test func packagedUnitsAreTheInstalledOnes() throws {
    // Given the units for the packaged binary
    let units = ReminderInstall.units(command: "/usr/bin/journal reminders run")
    // Then the files in Packaging/ are exactly those
    let service = try String(
      contentsOf: Self.packaging.appendingPathComponent("journal-reminders.service"),
      encoding: .utf8)
    let timer = try String(
      contentsOf: Self.packaging.appendingPathComponent("journal-reminders.timer"),
      encoding: .utf8)
    #expect(service == units.service)
    #expect(timer == units.timer)
  }

  /// A `%` in a path is doubled, since systemd reads `%x` as a specifier.
  @Test func percentIsEscaped() {
    let units = ReminderInstall.units(command: "'/home/a%b/journal' reminders run")
    #expect(units.service.contains("ExecStart='/home/a%%b/journal' reminders run\n"))
  }

  /// The packaged units are used only when they would do exactly what a written unit would:
  /// the packaged binary, on the default journal, with no unit of the person's own in front.
  @Test func packagedUnitsOnlyWhenTheyFit() {
    // Given the package's units installed and none of the person's own
    let packaged: Set = [
      "/usr/lib/systemd/user/journal-reminders.service",
      "/usr/lib/systemd/user/journal-reminders.timer",
    ]
    func uses(
      binary: String = "/usr/bin/journal", vault: String = "/home/a/.local/share/journal/vault.db",
      files: Set<String> = packaged
    ) -> Bool {
      ReminderInstall.usesPackagedUnits(
        binary: binary, vault: vault, home: "/home/a", userUnits: "/home/a/.config/systemd/user",
        exists: { files.contains($0) })
    }
    // Then the packaged binary on the default journal uses them
    #expect(uses())
    #expect(uses(vault: "/home/a/.local/share/journal/../journal/vault.db"))
    // And any difference writes the person's own units instead
    #expect(!uses(binary: "/home/a/.local/bin/journal"))
    #expect(!uses(vault: "/home/a/other/vault.db"))
    #expect(!uses(files: ["/usr/lib/systemd/user/journal-reminders.service"]))
    #expect(!uses(files: packaged.union(["/home/a/.config/systemd/user/journal-reminders.timer"])))
  }
}
