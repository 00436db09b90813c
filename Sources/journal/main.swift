import ArgumentParser
import Foundation
import JournalApp
import JournalDiagnostics
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
// `journal help new` is `journal new --help`: help is then the parser's answer, as for
// `--help`, and no command of ArgumentParser's own is left to run.
let parsed = arguments.first == "help" ? Array(arguments.dropFirst()) + ["--help"] : arguments
var command: any ParsableCommand
do {
  command = try Journal.parse(parsed)
} catch {
  finish(ParseFailure.report(error, arguments: arguments))
}
// Should ArgumentParser still hand back a command of its own (it adds `help`), what that
// throws is its own refusal or help, in journal's words like every other.
let ours = Journal.commandTypes.contains(ObjectIdentifier(type(of: command)))
do {
  try command.run()
  finish(JournalExit.success.rawValue)
} catch {
  finish(ours ? Report.failure(error) : ParseFailure.report(error, arguments: arguments))
}
