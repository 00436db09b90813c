import Foundation
import JournalCore
import JournalCrypto
import JournalStorage

/// A session as the sync server holds it, before sealing (SECURITY.md, "Sync"): version (1)
/// ‖ each field's stamp (10 × 28, in SyncField order) ‖ the summary's length (4,
/// little-endian) ‖ the summary's plaintext ‖ the body's plaintext (RecordCodec, marks and
/// kept conflicts included).
public enum SyncRowCodec {
  public static func encode(_ version: SyncMerge.Version) -> [UInt8] {
    var out: [UInt8] = [1]
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

  /// The version of session `id` from a row's plaintext; `SyncError.damagedRow` when it is
  /// not one.
  public static func decode(
    _ bytes: UnsafeRawBufferPointer, id: SessionID
  ) throws -> SyncMerge.Version {
    let stampsEnd = 1 + SyncField.allCases.count * SyncStamp.bytes
    guard bytes.count >= stampsEnd + 4, bytes[0] == 1 else {
      throw SyncError.damagedRow(id: id.short)
    }
    var stamps: SyncStamps = [:]
    for (index, field) in SyncField.allCases.enumerated() {
      let start = 1 + index * SyncStamp.bytes
      guard let stamp = SyncStamp(bytes[start..<(start + SyncStamp.bytes)]) else {
        throw SyncError.damagedRow(id: id.short)
      }
      stamps[field] = stamp
    }
    let length =
      Int(bytes[stampsEnd]) | Int(bytes[stampsEnd + 1]) << 8 | Int(bytes[stampsEnd + 2]) << 16
      | Int(bytes[stampsEnd + 3]) << 24
    let summaryStart = stampsEnd + 4
    guard bytes.count - summaryStart >= length else {
      throw SyncError.damagedRow(id: id.short)
    }
    do {
      let summary = try RecordCodec.decodeSummary(
        UnsafeRawBufferPointer(rebasing: bytes[summaryStart..<(summaryStart + length)]), id: id)
      let body = try RecordCodec.decodeBody(
        UnsafeRawBufferPointer(rebasing: bytes[(summaryStart + length)...]))
      return SyncMerge.Version(session: try RecordCodec.session(summary, body), stamps: stamps)
    } catch {
      throw SyncError.damagedRow(id: id.short)
    }
  }
}
