import Foundation
import JournalCore
import JournalCrypto
import JournalDiagnostics
import JournalDrafts
import JournalStorage
import JournalStore

/// Writing without the passphrase (SECURITY.md, "Sealed additions"): a new session, or later
/// fields of one, sealed to the vault's public key and kept as an addition until the journal
/// is next opened with its key. Nothing written here can be read back without the key, not
/// even by this process once it has let go of what was typed.
public struct SealedCapture {
  /// The vault file, opened without the key.
  public let vault: Vault
  let publicKey: [UInt8]
  let context: AppContext

  /// Sealed capture for the vault, when it is on and this computer has pinned the key it
  /// seals to (at an unlock); nil otherwise, when the passphrase is asked as ever. A vault
  /// whose key is not the pinned one is refused.
  static func ready(vault: Vault, context: AppContext) throws -> SealedCapture? {
    guard vault.readOnly == nil, let stored = try vault.sealing().publicKey,
      let pin = SealingPin(vaultID: vault.header.vaultID, environment: context.environment),
      let pinned = try pin.read()
    else { return nil }
    guard KeyedHash.same(stored, pinned) else { throw AppError.sealingKeyChanged }
    return SealedCapture(vault: vault, publicKey: pinned, context: context)
  }

  /// Saves a complete draft, with any later fields given, as a sealed new session. The
  /// session as it will open (marked as added without the passphrase).
  public func save(
    _ draft: SessionDraft, later: [Session.Change], tags: [String] = []
  ) throws -> Session {
    let now = context.now()
    var session = try Session.saving(draft, now: now)
    try session.retag(adding: tags, removing: [], now: now)
    for change in later {
      do {
        try session.revise(change, now: now)
      } catch {
        throw AppError.lifecycle(error, id: session.id.short)
      }
    }
    var plain = RecordCodec.encodeNewAddition(session)
    defer { wipe(&plain) }
    let box = try SealedBox.seal(plain, to: publicKey)
    try vault.addSealed(
      .new, id: session.id, completes: session.status != .needsReflection, at: now, box: box,
      sealedTo: publicKey)
    session.markAddedSealed(at: now)
    return session
  }

  /// Adds later fields to the session, sealed, applied when the journal is next opened.
  public func add(_ changes: [Session.Change], to id: SessionID) throws {
    let given = changes.filter { change in
      switch change {
      case .moodAfter(.some), .environment(.some), .music(.some), .reflection(.some): true
      case .moodAfter(nil), .environment(nil), .music(nil), .reflection(nil), .date, .treatment,
        .dose, .intention, .moodBefore:
        false
      }
    }
    guard !given.isEmpty else { return }
    let now = context.now()
    var plain = RecordCodec.encodeLaterAddition(given, at: now)
    defer { wipe(&plain) }
    let box = try SealedBox.seal(plain, to: publicKey)
    let completes = given.contains { $0.field == .reflection }
    try vault.addSealed(
      .later, id: id, completes: completes, at: now, box: box, sealedTo: publicKey)
  }

  /// Adds an integration note to the session, sealed, added when the journal is next opened.
  public func addNote(_ text: String, mood: Mood?, to id: SessionID) throws {
    let now = context.now()
    let note = Note(text: text, mood: mood, now: now, random: context.random.uint64)
    var plain = RecordCodec.encodeNoteAddition(note, at: now)
    defer { wipe(&plain) }
    let box = try SealedBox.seal(plain, to: publicKey)
    try vault.addSealed(.later, id: id, completes: false, at: now, box: box, sealedTo: publicKey)
  }

  /// The one session (saved, or waiting sealed) whose id starts with what was typed.
  public func resolve(_ text: String) throws -> SessionID {
    try vault.resolveForSealing(text)
  }

  /// The id as people should type it: the short form unless another id shares it.
  public func displayID(_ id: SessionID) throws -> String {
    try JournalVault.displayID(id, resolve: vault.resolveForSealing)
  }

  /// The vault's draft files, new ones sealed to the public key; none can be read here.
  public func drafts(in directory: String) throws -> DraftStore {
    try DraftStore(directory: directory, vaultID: vault.header.vaultID, sealingKey: publicKey)
  }

  /// A stand-in for a saved session whose words cannot be read without the key: the later
  /// fields are asked as for a session with none of them yet.
  static func blank(_ id: SessionID, now: Date) -> Session {
    Session(
      id: id, date: now, treatment: .psilocybin, dose: nil, intention: "", moodBefore: nil,
      environment: nil, music: nil, moodAfter: nil, reflection: nil, created: now, updated: now,
      status: .needsReflection)
  }
}
