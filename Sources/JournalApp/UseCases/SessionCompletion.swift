import Foundation
import JournalAgent
import JournalCore
import JournalDiagnostics

/// Session ids for a shell's completion (Tab after `journal show `).
///
/// Completion runs at every Tab, with no terminal of its own to ask on and with whatever the
/// person is typing still on the line. So it takes the key only from the unlock agent, never
/// by asking for a passphrase (nor from a passphrase file or command: a Tab is not consent to
/// unlock), and it offers ids alone: no date, treatment or any other word of a session, since
/// completions are shown on the screen and a custom treatment's name is the person's own.
/// It prints nothing either: every failure (locked, no vault, a settings file it cannot use)
/// is simply no completions.
public enum SessionCompletion {
  /// The ids of the sessions of the vault named by `vault` (a `--vault` from the line being
  /// completed, or nil for the usual places), newest first; none unless the agent holds its
  /// key.
  public static func ids(vault: String?) -> [String] {
    let base = ProcessInfo.processInfo.environment
    // The vault's own agent (one per unlocked vault), found by the id in its header.
    guard let environment = try? ConfigFile.apply(to: base),
      let path = try? VaultLocation.resolve(flag: vault, environment: environment),
      let vaultID = try? JournalVault.id(at: path),
      let agent = AgentClient(environment: environment, vaultID: vaultID), agent.status() != nil
    else { return [] }
    let context = AppContext.live(environment: environment)
    guard
      let journal = try? JournalVault.open(
        at: path, context: context, agentKeys: { agent.keys(vaultID: $0) }, check: .listing,
        passphrase: { throw AppError.noPassphraseSource }),
      let (sessions, _) = try? journal.list(needsReflection: false)
    else { return [] }
    return shown(sessions.map(\.id))
  }

  /// Each id as people type it: its first 8 digits, or all 32 where two share those.
  static func shown(_ ids: [SessionID]) -> [String] {
    var counts: [String: Int] = [:]
    for id in ids { counts[id.short, default: 0] += 1 }
    return ids.map { counts[$0.short] == 1 ? $0.short : $0.hex }
  }
}
