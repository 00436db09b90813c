import ArgumentParser
import Foundation
import JournalApp
import JournalTerminal

// Before anything else: no core dumps, no ptrace, and files private by default.
Runtime.hardenProcess()

/// Ends journal: whatever was typed or pasted and not read is dropped first, so that none
/// of it reaches the shell (where a pasted line would run and land in its history).
func finish(_ code: Int32) -> Never {
  TTY.discardPendingInput()
  exit(code)
}

let arguments = Array(CommandLine.arguments.dropFirst())
// `journal` alone: a few lines to start with, not the fifty of the whole help, where the first
// step scrolled out of sight.
if arguments.isEmpty {
  try? Runtime.output(Journal.start)
  finish(JournalExit.success.rawValue)
}
// `journal help nwe`: ArgumentParser would print the top-level help and succeed.
if arguments.first == "help", let code = ParseFailure.reportUnknownCommand(arguments) {
  finish(code)
}
var command: any ParsableCommand
do {
  command = try Journal.parseAsRoot(arguments)
} catch {
  finish(ParseFailure.report(error, arguments: arguments))
}
do {
  try command.run()
  finish(JournalExit.success.rawValue)
} catch {
  // `journal help <command>` asks for help from inside run(): ArgumentParser's own.
  let own = String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
  finish(own ? ParseFailure.report(error, arguments: arguments) : Report.failure(error))
}
