/// "1 session", "2 sessions": the one way journal writes a count with its noun.
public func counted(_ count: Int, _ noun: String, plural: String? = nil) -> String {
  "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
}
