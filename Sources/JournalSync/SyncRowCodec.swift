import Foundation
import JournalCore
import JournalCrypto
import JournalStorage

/// A session as the sync server holds it, before sealing (SECURITY.md, "Sync"): version (1)
/// ‖ each field's stamp (11 × 28 in layout 2, 10 in layout 1 without `tags`, in SyncField
/// order) ‖ the summary's length (4, little-endian) ‖ the summary's plaintext ‖ the body's
/// plaintext (RecordCodec, marks, kept conflicts, tags and notes included).
public enum SyncRowCodec {
  /// The layout's version, its first byte: 2 since format 14 (tags, notes), 1 before it.
  public static let version: UInt8 = 2

  public static func encode(_ version: SyncMerge.Version) -> [UInt8] {
    encode(version, layout: Self.version)
  }

  /// The row in `layout`: 1 as devices wrote it before vault format 14 (without `tags`'s
  /// stamp), kept so that its fixture is still written byte for byte.
  static func encode(_ version: SyncMerge.Version, layout: UInt8) -> [UInt8] {
    var out: [UInt8] = [layout]
    for field in layout == 1 ? SyncField.layoutOne : SyncField.allCases {
      out += (version.stamps[field] ?? .none).encoded
    }
    var summary = RecordCodec.encodeSummary(version.session)
    var body = RecordCodec.encodeBody(version.session)
    defer {
      wipe(&summary)
      wipe(&body)
    }
    out.append(littleEndian: UInt32(summary.count))
    out += summary
    out += body
    return out
  }

  /// The version of session `id` from a row's plaintext; `SyncError.damagedRow` when it is
  /// not one.
  public static func decode(
    _ bytes: UnsafeRawBufferPointer, id: SessionID
  ) throws -> SyncMerge.Version {
    var reader = ByteReader(bytes)
    var stamps: SyncStamps = [:]
    let summary: UnsafeRawBufferPointer
    do {
      let layout = try reader.byte()
      guard layout == 1 || layout == version else { throw SyncError.damagedRow(id: id.short) }
      for field in layout == 1 ? SyncField.layoutOne : SyncField.allCases {
        stamps[field] = try SyncStamp(reading: &reader)
      }
      summary = try reader.bytes(Int(try reader.littleEndian(UInt32.self)))
    } catch is ByteReader.Short {
      throw SyncError.damagedRow(id: id.short)
    }
    do {
      let session = try RecordCodec.session(
        try RecordCodec.decodeSummary(summary, id: id), try RecordCodec.decodeBody(reader.rest()))
      return SyncMerge.Version(session: session, stamps: stamps)
    } catch {
      throw SyncError.damagedRow(id: id.short)
    }
  }
}
