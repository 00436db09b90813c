import Foundation
import JournalCore
import JournalSystem

/// When the line before every command about sessions waiting for reflection was last shown
/// on this computer: it is shown once a day, not before every command (gentle, not
/// pressure).
///
/// `$XDG_STATE_HOME/journal/seen/<vault id hex>-reminder-note` (else
/// `~/.local/state/journal/seen/…`), 0600 in 0700 directories: the day it was shown, as
/// `YYYY-MM-DD` in the local time zone, and a line break. Nothing of the journal's content.
struct ReminderNote {
  let path: String

  /// The record of vault `vaultID`; nil where there is no home to keep it in.
  init?(vaultID: [UInt8], environment: [String: String]) {
    guard let directory = VaultWitness.directory(environment: environment) else { return nil }
    self.path = directory + "/" + Hex.lowercase(vaultID) + "-reminder-note"
  }

  /// `date`'s day in `timeZone`, as the record keeps it.
  static func day(_ date: Date, timeZone: TimeZone) -> String {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
  }

  /// Whether the line was shown on `day` already. A record that cannot be read counts as
  /// not shown: the line comes once more.
  func shown(on day: String) -> Bool {
    guard (try? FileSafety.privateFile(path)) == true,
      let data = FileManager.default.contents(atPath: path)
    else { return false }
    return String(decoding: data, as: UTF8.self) == day + "\n"
  }

  /// Records that the line was shown on `day`. A failure is let go: the line comes again.
  func record(_ day: String) {
    try? FileSafety.privateDirectory(FileSafety.parentDirectory(of: path), create: true)
    try? VaultWitness.replace(path, with: Array((day + "\n").utf8))
  }
}
