import JournalApp
import JournalCore
import JournalCrypto
import JournalStore
import Testing

struct DiagnosisTests {
  /// Each kind of failure has its own exit code.
  @Test func exitCodes() {
    #expect(
      Diagnosis(ValidationError.moodOutOfRange(field: .moodBefore, value: 0)).exitCode == .usage)
    #expect(Diagnosis(StoreError.vaultMissing(path: "/x")).exitCode == .noVault)
    #expect(Diagnosis(CryptoError.wrongPassphrase).exitCode == .wrongPassphrase)
    #expect(Diagnosis(CryptoError.integrity).exitCode == .damaged)
    #expect(Diagnosis(StoreError.notAVault(path: "/x")).exitCode == .damaged)
    #expect(Diagnosis(StoreError.ambiguous(prefix: "a", candidates: [])).exitCode == .notFound)
    #expect(Diagnosis(StoreError.vaultExists(path: "/x")).exitCode == .notAllowed)
    #expect(Diagnosis(AppError.lifecycle(.alreadyComplete, id: "3f2a")).exitCode == .notAllowed)
    #expect(Diagnosis(StoreError.symlink(path: "/x")).exitCode == .unsafeFiles)
    #expect(Diagnosis(AppError.noPassphraseSource).exitCode == .passphraseUnavailable)
    #expect(Diagnosis(StoreError.newerFormat(found: 2, supported: 1)).exitCode == .newerFormat)
    #expect(Diagnosis(StoreError.busy).exitCode == .ioError)
    #expect(Diagnosis(AppError.cancelled).exitCode == .cancelled)
    struct Unexpected: Error {}
    #expect(Diagnosis(Unexpected()).exitCode == .internalError)
  }

  /// A treatment name typed wrongly is private: the message lists the known ones instead.
  @Test func noTypedContentInMessages() {
    let diagnosis = Diagnosis(ValidationError.unknownTreatment("my secret brew"))
    #expect(!diagnosis.message.contains("secret brew"))
    #expect(!(diagnosis.hint ?? "").contains("secret brew"))
    #expect(diagnosis.hint?.contains("psilocybin") == true)
  }

  /// The style of every message: lowercase first letter, no trailing period.
  @Test func messageStyle() {
    let samples: [any Error] = [
      ValidationError.missingFields([.intention]), ValidationError.dateTooFarAhead,
      CryptoError.wrongPassphrase, StoreError.noMatch(prefix: "ab"), AppError.nothingToChange,
      AppError.lifecycle(.alreadyComplete, id: "3f2a"), StoreError.damagedRecord(id: "3f2a"),
    ]
    for error in samples {
      let message = Diagnosis(error).message
      #expect(message.first?.isLowercase == true || message.first == "\"", "\(message)")
      #expect(!message.hasSuffix("."), "\(message)")
    }
  }
}
