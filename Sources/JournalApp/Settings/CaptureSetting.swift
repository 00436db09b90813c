import JournalStore

/// `journal capture`: whether new sessions and reflections can be written without the
/// passphrase (sealed capture), turned on or off with the key.
public enum CaptureSetting {
  /// What `journal capture` shows.
  public struct State: Sendable, Equatable {
    public let on: Bool
    /// Additions written without the passphrase, waiting to be opened with it.
    public let waiting: Int
  }

  /// The setting and what waits, without the passphrase.
  public static func state(_ runtime: Runtime) throws -> State {
    let vault = try runtime.openLocked()
    return State(on: try vault.sealing().publicKey != nil, waiting: try vault.sealedCount())
  }

  /// Turns it on or off (the passphrase, or the agent, is needed for either: on pins the
  /// key on this computer). Turning it off, within the cooling-off window after a session, at
  /// a terminal and unless `confirmed` (--yes), first pauses to ask once more.
  public static func set(_ on: Bool, _ runtime: Runtime, confirmed: Bool = false) throws -> State {
    // Read only where it can apply (turning it off), before the passphrase is asked.
    let window = on ? 0 : try CoolingOffPause.window(runtime)
    let journal = try runtime.openVault()
    if !on, try journal.file.sealing().publicKey != nil {
      try CoolingOffPause.check(
        .captureOff, window: window, journal: journal, confirmed: confirmed, runtime)
    }
    try journal.setSealedCapture(on)
    try journal.markSealedCaptureOffered()
    return State(on: on, waiting: try journal.file.sealedCount())
  }
}
