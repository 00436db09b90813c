import ArgumentParser
import Foundation
import JournalApp

// Before anything else: no core dumps, no ptrace, and files private by default.
Hardening.apply()

do {
  var command = try Journal.parseAsRoot()
  try command.run()
  exit(JournalApp.ExitCode.success.rawValue)
} catch {
  exit(Report.failure(error))
}
