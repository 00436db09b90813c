import Foundation
import JournalApp
import JournalDiagnostics
import Testing

/// The man page (Docs/journal.1) against the code: every exit code and every setting, and the
/// pointer that --help and the hints give to it.
struct ManualTests {
  /// The page's source, and its sections by title.
  static func sections() throws -> [String: String] {
    let page = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Docs/journal.1")
    // roff's minus sign is the hyphen of an option or a setting's name.
    let text = try String(contentsOf: page, encoding: .utf8)
      .replacingOccurrences(of: #"\-"#, with: "-")
    var sections: [String: String] = [:]
    for chunk in text.components(separatedBy: "\n.SH ").dropFirst() {
      let title = chunk.prefix { $0 != "\n" }.replacingOccurrences(of: "\"", with: "")
      sections[title] = String(chunk.drop { $0 != "\n" })
    }
    return sections
  }

  /// EXIT STATUS lists exactly the codes journal has, in order, each as a tag of its own.
  @Test func exitStatusMatchesTheCode() throws {
    let section = try #require(try Self.sections()["EXIT STATUS"])
    let lines = section.split(separator: "\n").map(String.init)
    let codes = zip(lines, lines.dropFirst()).compactMap { tag, line -> Int32? in
      guard tag == ".TP", line.hasPrefix(".B ") else { return nil }
      return Int32(line.dropFirst(3))
    }
    #expect(codes == JournalExit.allCases.map(\.rawValue))
  }

  /// SETTINGS names every setting the file accepts, and ENVIRONMENT its variable.
  @Test func everySettingIsDocumented() throws {
    let sections = try Self.sections()
    let settings = try #require(sections["SETTINGS"])
    let environment = try #require(sections["ENVIRONMENT"])
    for name in ConfigFile.names.sorted() {
      #expect(settings.contains(".BR \(name) ,") || settings.contains(".BR \(name) ."), "\(name)")
      let variable = "JOURNAL_" + name.uppercased().replacingOccurrences(of: "-", with: "_")
      #expect(environment.contains(".B \(variable)\n"), "\(variable)")
    }
  }

  /// The hint for a settings line that cannot be used points to the man page.
  @Test func settingsHintPointsToTheManPage() {
    let diagnosis = Diagnosis(AppError.configLine(path: "/c", line: 2, problem: "x"))
    #expect(diagnosis.hint == #"the settings are listed in "man journal"; fix or remove that line"#)
    #expect(Manual.pointer == #""man journal""#)
  }
}
