import ArgumentParser
import JournalApp

/// Where what leaves the journal goes and how (`export`, `share`): `--output`, and `--to`,
/// `--to-file`, `--armor` and `--fields`, encrypting it with age to the people it is for and
/// choosing what of each session goes.
struct OutputOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp("Write to this new file instead of standard output.", valueName: "file"),
    completion: .file())
  var output: String?

  @Option(
    name: .customLong("to"),
    help: ArgumentHelp(
      "Encrypt to this age recipient (age1…, or an SSH public key); repeat for several.",
      valueName: "recipient"))
  var recipients: [String] = []

  @Option(
    name: .customLong("to-file"),
    help: ArgumentHelp("Encrypt to the recipients in this file, one a line.", valueName: "path"),
    completion: .file())
  var files: [String] = []

  @Flag(help: "ASCII-armoured age output (text that survives e-mail).")
  var armor = false

  @Option(
    help: ArgumentHelp(
      "Only these fields, comma-separated: date, treatment, dose, intention, mood-before, "
        + "environment, music, mood-after, reflection.",
      valueName: "list"))
  var fields: String?

  var destination: OutputFile.Destination { output.map { .file($0) } ?? .standardOutput }

  var ageRecipients: AgeRecipients {
    AgeRecipients(recipients: recipients, files: files, armor: armor)
  }
}
