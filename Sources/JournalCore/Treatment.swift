/// The substance or method of a session. Psilocybin is the default.
public enum Treatment: Hashable, Sendable {
  case psilocybin
  case mdma
  case ketamine
  case lsd
  case ayahuasca
  case mescaline
  case dmt
  case ibogaine
  case cannabis
  /// Anything else, in the person's own words.
  case other(String)

  /// The named treatments, in the order forms offer them.
  public static let known: [Treatment] = [
    .psilocybin, .mdma, .ketamine, .lsd, .ayahuasca, .mescaline, .dmt, .ibogaine, .cannabis,
  ]

  /// The longest custom name accepted, in characters.
  public static let maximumCustomLength = 100

  /// The stable key stored and exported: "psilocybin", "mdma", …, or "other".
  public var key: String {
    switch self {
    case .psilocybin: "psilocybin"
    case .mdma: "mdma"
    case .ketamine: "ketamine"
    case .lsd: "lsd"
    case .ayahuasca: "ayahuasca"
    case .mescaline: "mescaline"
    case .dmt: "dmt"
    case .ibogaine: "ibogaine"
    case .cannabis: "cannabis"
    case .other: "other"
    }
  }

  /// How the treatment is shown to people.
  public var displayName: String {
    switch self {
    case .psilocybin: "Psilocybin"
    case .mdma: "MDMA"
    case .ketamine: "Ketamine"
    case .lsd: "LSD"
    case .ayahuasca: "Ayahuasca"
    case .mescaline: "Mescaline"
    case .dmt: "DMT"
    case .ibogaine: "Ibogaine"
    case .cannabis: "Cannabis"
    case .other(let name): name
    }
  }

  /// The custom name of `.other`, nil for the named treatments.
  public var customName: String? {
    if case .other(let name) = self { return name }
    return nil
  }

  /// Builds a treatment from its stored key and, for "other", its custom name.
  public init?(key: String, customName: String?) {
    if key == "other" {
      guard let name = customName else { return nil }
      self = .other(name)
      return
    }
    guard let match = Treatment.known.first(where: { $0.key == key }) else { return nil }
    self = match
  }

  /// Reads what a person typed: a known name in any case ("MDMA", "lsd"), or
  /// "other:<name>" / "other <name>" for anything else.
  public static func parse(_ text: String) throws(FieldError) -> Treatment {
    let trimmed = text.trimmingWhitespace()
    let lower = trimmed.lowercased()
    if let match = known.first(where: { $0.key == lower }) { return match }
    for separator in [":", " "] where lower.hasPrefix("other" + separator) {
      let name = String(trimmed.dropFirst(6)).trimmingWhitespace()
      guard !name.isEmpty else { throw .emptyCustomTreatment }
      guard name.count <= maximumCustomLength else {
        throw .customTreatmentTooLong(maximum: maximumCustomLength)
      }
      guard !name.containsControlCharacters else { throw .controlCharacters(field: .treatment) }
      return .other(name)
    }
    if lower == "other" { throw .emptyCustomTreatment }
    throw .unknownTreatment(suggestion: Suggestion.nearest(to: trimmed, among: known.map(\.key)))
  }
}
