import Foundation
import Testing

@testable import CoreLocationSources

/// The IIO buffer's scan format, decoded by hand: each case gives the bytes, the `_type` text and the value
/// worked out on paper.
struct IIOScanFormatTests {
    @Test func parsesTheKernelsText() throws {
        let bmi = try #require(IIOScanFormat("le:s16/16>>0\n"))
        #expect(bmi == IIOScanFormat(isBigEndian: false, isSigned: true, realBits: 16, storageBits: 16, shift: 0))
        let twelve = try #require(IIOScanFormat("be:s12/16>>4"))
        #expect(twelve.isBigEndian && twelve.realBits == 12 && twelve.storageBits == 16 && twelve.shift == 4)
        let repeated = try #require(IIOScanFormat("le:u16/32X2>>0"))
        #expect(!repeated.isSigned && repeated.repeatCount == 2 && repeated.storageBytes == 4)
        #expect(IIOScanFormat("le:s64/64>>0")?.storageBytes == 8)
        #expect(repeated.description == "le:u16/32X2>>0" && twelve.description == "be:s12/16>>4")
        for bad in [
            "", "xe:s16/16>>0", "le:q16/16>>0", "le:s16/12>>0", "le:s16/16>>4", "le:s16/24>>0", "le:s16/16",
            "le:s0/16>>0", "le:s16/16X0>>0", "les16/16>>0",
        ] {
            #expect(IIOScanFormat(bad) == nil, "\(bad)")
        }
    }

    /// (bytes, type, value): sign extension of the real bits, the shift, both byte orders.
    @Test(
        arguments: [
            ([0x18, 0xFC], "le:s16/16>>0", -1000),  // 0xFC18 = 64536 − 65536
            ([0x18, 0xFC], "le:u16/16>>0", 64536),
            ([0xFC, 0x18], "be:s16/16>>0", -1000),
            ([0x03, 0xE8], "be:s16/16>>0", 1000),
            ([0xFF, 0xF0], "be:s12/16>>4", -1),  // 0xFFF0 >> 4 = 0xFFF: 12 bits, all ones
            ([0x7F, 0xF0], "be:s12/16>>4", 2047),
            ([0x80, 0x00], "be:s12/16>>4", -2048),
            ([0xF0, 0x7F], "le:s12/16>>4", 2047),
            ([0x0F, 0x08], "le:s12/16>>0", -2033),  // 0x080F & 0xFFF = 0x80F = 2063 − 4096; the top nibble is not data
            ([0xFE, 0xFF, 0xFF, 0xFF], "le:s32/32>>0", -2),
            ([0x01, 0x00, 0x00, 0x80], "le:s24/32>>8", -8_388_608),  // 0x80000001 >> 8 = 0x800000: the 24-bit minimum
        ] as [([UInt8], String, Int64)])
    func decodesAnElement(bytes: [UInt8], type: String, value: Int64) throws {
        let format = try #require(IIOScanFormat(type))
        #expect(bytes.withUnsafeBytes { format.decode($0, at: 0) } == value)
    }

    @Test func rawRangeIsTheConvertersRange() throws {
        #expect(IIOScanFormat("le:s16/16>>0")?.rawRange == -32768...32767)
        #expect(IIOScanFormat("be:s12/16>>4")?.rawRange == -2048...2047)
        #expect(IIOScanFormat("le:u10/16>>0")?.rawRange == 0...1023)
    }

    /// Each element aligned to its own storage size, the scan padded to its largest element.
    @Test func layoutAlignsEachElementAndTheTimestampTo8() throws {
        let s16 = try #require(IIOScanFormat("le:s16/16>>0"))
        let s64 = try #require(IIOScanFormat("le:s64/64>>0"))
        let u8 = try #require(IIOScanFormat("le:u8/8>>0"))
        let s32 = try #require(IIOScanFormat("be:s32/32>>0"))
        // Three 16-bit axes (0, 2, 4), then the timestamp at 8, not 6: 16 bytes.
        let imu = IIOScanLayout([
            ("in_timestamp", 3, s64), ("in_accel_z", 2, s16), ("in_accel_x", 0, s16),
            ("in_accel_y", 1, s16),
        ])
        #expect(imu.elements.map(\.name) == ["in_accel_x", "in_accel_y", "in_accel_z", "in_timestamp"])
        #expect(imu.elements.map(\.offset) == [0, 2, 4, 8] && imu.scanBytes == 16)
        // u8 at 0, s16 at 2 (not 1), s32 at 4, u8 at 8, s64 at 16; 24 bytes.
        let mixed = IIOScanLayout([("a", 0, u8), ("b", 1, s16), ("c", 2, s32), ("d", 3, u8), ("e", 4, s64)])
        #expect(mixed.elements.map(\.offset) == [0, 2, 4, 8, 16] && mixed.scanBytes == 24)
        // Without a timestamp, 3 × 16 bits + one byte: 7 bytes padded to 8.
        let small = IIOScanLayout([("x", 0, s16), ("y", 1, s16), ("z", 2, s16), ("t", 3, u8)])
        #expect(small.scanBytes == 8)
    }

    /// A truncated read keeps its partial scan: one byte at a time and all at once decode the same scans.
    @Test func decoderCompletesTruncatedReads() throws {
        let s16 = try #require(IIOScanFormat("be:s16/16>>0"))
        let s64 = try #require(IIOScanFormat("le:s64/64>>0"))
        let layout = IIOScanLayout([("x", 0, s16), ("y", 1, s16), ("z", 2, s16), ("in_timestamp", 3, s64)])
        let scan1 = be16(1000) + be16(-1000) + be16(16384) + [0xAA, 0xBB] + le64(1_700_000_000_000_000_001)
        let scan2 = be16(-1) + be16(2) + be16(-32768) + [0, 0] + le64(-5)
        let expected: [[Int64]] = [[1000, -1000, 16384, 1_700_000_000_000_000_001], [-1, 2, -32768, -5]]
        var whole = IIOBufferDecoder(layout: layout)
        let all = whole.feed(scan1 + scan2)
        #expect(all == expected && whole.pendingBytes == 0)
        var drip = IIOBufferDecoder(layout: layout)
        var dripped: [[Int64]] = []
        for byte in scan1 + scan2 { dripped += drip.feed([byte]) }
        #expect(dripped == expected)
        var split = IIOBufferDecoder(layout: layout)
        let head = split.feed(scan1 + scan2.prefix(5))
        #expect(head == [expected[0]] && split.pendingBytes == 5)
        let rest = split.feed(scan2.dropFirst(5))
        #expect(rest == [expected[1]] && split.pendingBytes == 0)
    }
}
