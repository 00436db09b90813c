/// "Did you mean": the nearest of a few known words (commands, treatments) to one that was
/// not recognised. The one definition, used for command names in the executable and for
/// treatments in `Treatment.parse`.
public enum Suggestion {
  /// The known word nearest to `typed`, compared without case, when it is near enough to be
  /// a slip: at most one edit for words up to five characters, two up to eight, three
  /// beyond. Nil when none is, when `typed` is empty or is exactly one of them (one that
  /// differs only in case is suggested); of two equally near, the first in `words`.
  public static func nearest(to typed: String, among words: [String]) -> String? {
    guard !typed.isEmpty, !words.contains(typed) else { return nil }
    let typed = typed.lowercased()
    let allowed = max(1, min(3, typed.count / 3))
    var best: (word: String, distance: Int)?
    for word in words {
      let distance = distance(typed, word.lowercased())
      if distance <= allowed, distance < best?.distance ?? Int.max { best = (word, distance) }
    }
    return best?.word
  }

  /// The optimal-string-alignment distance (Damerau–Levenshtein without edits of an
  /// already swapped pair): insertions, deletions, substitutions and swaps of two neighbouring
  /// characters each cost one. Quadratic in the lengths; only ever given short words.
  public static func distance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    // Three rows: two back (for a swap), one back, and the one being filled.
    var twoBack = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], twoBack[j - 2] + 1)
        }
      }
      (twoBack, previous, current) = (previous, current, twoBack)
    }
    return previous[b.count]
  }
}
