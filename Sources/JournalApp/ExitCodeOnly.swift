/// Ends a command with an exit code after its messages have been written.
public struct ExitCodeOnly: Error {
  public let code: ExitCode

  public init(code: ExitCode) { self.code = code }
}
