import JournalCore

/// What an import did, or would do.
public struct ImportCount: Sendable, Equatable {
  public var added = 0
  public var updated = 0
  public var unchanged = 0
  /// Sessions of the file this vault deleted for good (a tombstone), left out: an import
  /// never brings back what was purged unless asked to (`restorePurged`).
  public var purged: [SessionID] = []
  /// Purged sessions brought back, their tombstones removed, as asked.
  public var restored: [SessionID] = []
  /// Sessions of the file that are in the trash here, their undo window open: left as they
  /// are (an undo brings back the person's own copy).
  public var inTrash: [SessionID] = []
  /// Sessions of the file and here with the same id, one of them written without the
  /// passphrase: that one was kept apart under a new id (`keptAs`).
  public var keptApart: [KeptApart] = []

  public init(added: Int = 0, updated: Int = 0, unchanged: Int = 0) {
    self.added = added
    self.updated = updated
    self.unchanged = unchanged
  }
}

/// A session written without the passphrase kept apart, under a new id (`keptAs`), from the
/// session whose id it claimed: it never takes the place of a person's session.
public struct KeptApart: Sendable, Equatable {
  public let claimed: SessionID
  public let keptAs: SessionID

  public init(claimed: SessionID, keptAs: SessionID) {
    self.claimed = claimed
    self.keptAs = keptAs
  }
}
