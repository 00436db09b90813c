/// The order of a streamed read.
public enum ReadOrder: Sendable {
  /// By date, then id, descending: `list`.
  case newestFirst
  /// By date, then id, ascending: `export`, which reads like a diary.
  case oldestFirst
}
