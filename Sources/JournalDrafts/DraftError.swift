/// Failures of the draft files. None carries draft content.
public enum DraftError: Error, Equatable, Sendable {
  /// Another journal process holds the draft's lock: it is being edited there.
  case inUse(id: String)
  /// No draft of this vault has an id starting with the prefix.
  case noMatch(prefix: String)
  /// Several drafts share the prefix.
  case ambiguous(prefix: String)
  /// The draft was written without the passphrase (sealed to the vault's public key), or
  /// under the draft key, and this store has not the key to read it.
  case needsKey(id: String)
  /// The draft file is not one this vault's journal wrote for the id: damaged, truncated,
  /// another vault's or another draft's, not a regular file of this user's, or a symbolic
  /// link. Other drafts are fine.
  case damaged(id: String)
  /// A draft file could not be written or removed.
  case io(path: String, errno: Int32)
}
