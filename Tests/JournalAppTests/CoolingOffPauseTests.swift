import Foundation
import JournalDiagnostics
import Testing

@testable import JournalApp

/// The pause after a session: its setting and its words.
struct CoolingOffPauseTests {
  /// 24 h unless set; durations as settings are written; a bare 0 turns it off.
  @Test func theSetting() throws {
    #expect(try CoolingOffWindow.duration(environment: [:]) == 86400)
    #expect(try CoolingOffWindow.duration(environment: ["JOURNAL_COOLING_OFF": ""]) == 86400)
    let read = { (text: String) throws -> TimeInterval in
      try CoolingOffWindow.duration(environment: ["JOURNAL_COOLING_OFF": text])
    }
    #expect(try read("24h") == 86400)
    #expect(try read("90m") == 5400)
    #expect(try read("2d") == 2 * 86400)
    #expect(try read("7d") == 7 * 86400)
    #expect(try read("0") == 0)
    #expect(try read("0h") == 0)
  }

  /// A value that is not a duration, or longer than a week, is one line naming the setting.
  @Test(arguments: ["soon", "24", "-1h", "8d", "169h", "1w"])
  func aBadValue(_ text: String) {
    #expect {
      try CoolingOffWindow.duration(environment: ["JOURNAL_COOLING_OFF": text])
    } throws: { error in
      guard case .badSetting(let name, let expected)? = error as? AppError else { return false }
      return name == "JOURNAL_COOLING_OFF" && expected.contains("up to 7 days")
    }
  }

  /// How long ago, in plain words, rounded down.
  @Test func howLongAgo() {
    #expect(CoolingOffPause.ago(0) == "less than a minute ago")
    #expect(CoolingOffPause.ago(59) == "less than a minute ago")
    #expect(CoolingOffPause.ago(60) == "a minute ago")
    #expect(CoolingOffPause.ago(45 * 60) == "45 minutes ago")
    #expect(CoolingOffPause.ago(3600) == "an hour ago")
    #expect(CoolingOffPause.ago(3 * 3600 + 59 * 60) == "3 hours ago")
    #expect(CoolingOffPause.ago(86400 + 3600) == "a day ago")
    #expect(CoolingOffPause.ago(3 * 86400) == "3 days ago")
  }

  /// The line is calm: it says when, and that this can wait; nothing exclaims.
  @Test func theLine() {
    let line = CoolingOffPause.line(since: 3 * 3600)
    #expect(line == "Your last session was 3 hours ago. This can wait until another day.")
    let acts: [CoolingOffPause.Act] = [
      .changeKey, .removeRecoveryCode, .leaveSync(deletingServerCopy: false),
      .leaveSync(deletingServerCopy: true), .captureOff,
    ]
    for text in [line] + acts.flatMap({ [$0.question, $0.kept] }) {
      #expect(!text.contains("!"), "\(text)")
    }
  }
}
