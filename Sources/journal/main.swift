import ArgumentParser
import Foundation
import JournalApp

// Before anything else: no core dumps, no ptrace, and files private by default.
Runtime.hardenProcess()

let arguments = Array(CommandLine.arguments.dropFirst())
var command: any ParsableCommand
do {
  command = try Journal.parseAsRoot(arguments)
} catch {
  exit(ParseFailure.report(error, arguments: arguments))
}
do {
  try command.run()
  exit(JournalApp.ExitCode.success.rawValue)
} catch {
  // `journal help <command>` asks for help from inside run(): ArgumentParser's own.
  let own = String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
  exit(own ? ParseFailure.report(error, arguments: arguments) : Report.failure(error))
}
