import ArgumentParser
import JournalApp

/// `on` or `off`, for `journal capture`.
enum CaptureChoice: String, ExpressibleByArgument, CaseIterable {
  case on, off
}

extension Journal {
  /// `journal capture [on|off]`: writing without the passphrase.
  struct Capture: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "capture",
      abstract: "Write new sessions and reflections without the passphrase: on, off, or see.",
      discussion: """
        When it is on, "journal new" and "journal reflect" ask for no passphrase if the \
        journal is locked: what you write is sealed, like a letter in a locked letterbox, and \
        opens the next time the journal is opened with the passphrase. Reading always needs \
        it. Turning it on or off asks for the passphrase.
        """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("on or off; leave out to see the setting.", valueName: "on|off"))
    var choice: CaptureChoice?

    @Flag(help: "Turn it off without asking, even just after a session.")
    var yes = false

    func run() throws {
      let runtime = try Runtime(options)
      let state =
        try choice.map { try CaptureSetting.set($0 == .on, runtime, confirmed: yes) }
        ?? CaptureSetting.state(runtime)
      var line =
        state.on
        ? "writing without the passphrase is on" : "writing without the passphrase is off"
      if state.waiting > 0 {
        line +=
          "; \(state.waiting) sealed \(state.waiting == 1 ? "addition waits" : "additions wait")"
      }
      try Runtime.output(line + "\n")
    }
  }
}
