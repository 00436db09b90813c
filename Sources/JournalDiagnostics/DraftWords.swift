/// The words for a kept draft, shared by the interrupt note and the error map.
public enum DraftWords {
  /// How a kept draft is taken up again: `journal new` offers it, but one written without the
  /// passphrase only once the key is at hand (a locked `journal new` starts afresh).
  public static func resume(sealed: Bool) -> String {
    sealed
      ? #"it opens with your passphrase: after "journal unlock", "journal new" offers it again"#
      : #""journal new" offers it again"#
  }
}
