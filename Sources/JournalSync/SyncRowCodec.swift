import Foundation
import JournalCore
import JournalCrypto
import JournalStorage

/// A session as the sync server holds it, before sealing (SECURITY.md, "Sync"): version (1)
/// ‖ each field's stamp (10 × 28, in SyncField order) ‖ the summary's length (4,
/// little-endian) ‖ the summary's plaintext ‖ the body's plaintext (RecordCodec, marks and
/// kept conflicts included).
public enum SyncRowCodec {
  /// The layout's version, its first byte; a reader refuses a later one as newer data.
  public static let version: UInt8 = 1

  public static func encode(_ version: SyncMerge.Version) -> [UInt8] {
    var out: [UInt8] = [Self.version]
    for field in SyncField.allCases { out += (version.stamps[field] ?? .none).encoded }
    var summary = RecordCodec.encodeSummary(version.session)
    var body = RecordCodec.encodeBody(version.session)
    defer {
      wipe(&summary)
      wipe(&body)
    }
    withUnsafeBytes(of: UInt32(summary.count).littleEndian) { out += $0 }
    out += summary
    out += body
    return out
  }

  public static func decode(
    _ bytes: UnsafeRawBufferPointer, id: SessionID
  ) throws -> SyncMerge.Version {
    let stampsEnd = 1 + SyncField.allCases.count * SyncStamp.bytes
    guard bytes.count >= stampsEnd + 4, bytes[0] == version else {
      throw CryptoError.malformedPlaintext
    }
    var stamps: SyncStamps = [:]
    for (index, field) in SyncField.allCases.enumerated() {
      let start = 1 + index * SyncStamp.bytes
      guard let stamp = SyncStamp(bytes[start..<(start + SyncStamp.bytes)]) else {
        throw CryptoError.malformedPlaintext
      }
      stamps[field] = stamp
    }
    let length =
      Int(bytes[stampsEnd]) | Int(bytes[stampsEnd + 1]) << 8 | Int(bytes[stampsEnd + 2]) << 16
      | Int(bytes[stampsEnd + 3]) << 24
    let summaryStart = stampsEnd + 4
    guard bytes.count - summaryStart >= length else { throw CryptoError.malformedPlaintext }
    do {
      let summary = try RecordCodec.decodeSummary(
        UnsafeRawBufferPointer(rebasing: bytes[summaryStart..<(summaryStart + length)]), id: id)
      let body = try RecordCodec.decodeBody(
        UnsafeRawBufferPointer(rebasing: bytes[(summaryStart + length)...]))
      return SyncMerge.Version(session: try RecordCodec.session(summary, body), stamps: stamps)
    } catch {
      throw CryptoError.malformedPlaintext
    }
  }
}
