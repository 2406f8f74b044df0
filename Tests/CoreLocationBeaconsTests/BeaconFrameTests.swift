import CoreLocationBeacons
import Foundation
import Testing

/// The frame decoders against frames published with their decoded values.
struct BeaconFrameTests {
    /// forforf/multi_beacon, ibeacon_protocol.md ("Complete data"): the manufacturer data after the AD header
    /// `1A FF` is `4C 00 02 15 83 25 6B 74 78 D0 43 A4 82 69 05 F9 DC 8A 44 BA 00 10 00 20 C6`, UUID
    /// 83256B74-78D0-43A4-8269-05F9DC8A44BA, major 16, minor 32, measured power −58 dBm (0xC6).
    static let published = "0215" + "83256b7478d043a4826905f9dc8a44ba" + "0010" + "0020" + "c6"
    static let publishedUUID = UUID(uuidString: "83256B74-78D0-43A4-8269-05F9DC8A44BA")!

    @Test func iBeaconPublishedFrame() throws {
        let data = try #require([UInt8](hex: Self.published))
        let frame = try #require(BeaconFrame.iBeacon(company: 0x004C, data: data))
        #expect(frame.format == .iBeacon)
        #expect(frame.identity == .uuid(Self.publishedUUID, major: 16, minor: 32))
        #expect(frame.measuredPower == -58)
    }

    @Test func majorAndMinorAreBigEndian() throws {
        // Apple's own layout for CLBeaconRegion.peripheralData: major 0x1234, minor 0xABCD.
        let data = try #require([UInt8](hex: "0215" + "83256b7478d043a4826905f9dc8a44ba" + "1234" + "abcd" + "bf"))
        let frame = try #require(BeaconFrame.iBeacon(company: 0x004C, data: data))
        #expect(frame.identity == .uuid(Self.publishedUUID, major: 0x1234, minor: 0xABCD))
        #expect(frame.measuredPower == -65)
    }

    @Test func badIBeaconFramesAreNil() throws {
        let data = try #require([UInt8](hex: Self.published))
        #expect(BeaconFrame.iBeacon(company: 0x0059, data: data) == nil, "another company (Nordic)")
        #expect(BeaconFrame.iBeacon(company: 0x004C, data: Array(data.dropLast())) == nil, "truncated")
        #expect(BeaconFrame.iBeacon(company: 0x004C, data: data + [0]) == nil, "oversized")
        #expect(BeaconFrame.iBeacon(company: 0x004C, data: [0x02]) == nil)
        #expect(BeaconFrame.iBeacon(company: 0x004C, data: []) == nil)
        var otherType = data
        otherType[0] = 0x10  // Apple's "Nearby" type, seen constantly from iPhones
        #expect(BeaconFrame.iBeacon(company: 0x004C, data: otherType) == nil)
        var otherLength = data
        otherLength[1] = 0x16
        #expect(BeaconFrame.iBeacon(company: 0x004C, data: otherLength) == nil)
    }

    /// AltBeacon spec (github.com/AltBeacon/spec), layout: beacon code BE AC, 20-byte beacon ID, reference RSSI,
    /// reserved; company 0x0118 (Radius Networks, the spec's author). The ID is the spec example's split of
    /// UUID + 2 + 2 bytes.
    @Test func altBeacon() throws {
        let data = try #require(
            [UInt8](hex: "beac" + "2f234454cf6d4a0fadf2f4911ba9ffa6" + "0001" + "0002" + "c5" + "00"))
        let frame = try #require(BeaconFrame.altBeacon(company: 0x0118, data: data))
        #expect(frame.format == .altBeacon)
        #expect(frame.identity == .uuid(UUID(uuidString: "2F234454-CF6D-4A0F-ADF2-F4911BA9FFA6")!, major: 1, minor: 2))
        #expect(frame.measuredPower == -59)
        #expect(BeaconFrame.altBeacon(company: 0x0118, data: Array(data.dropLast())) == nil)
        #expect(BeaconFrame.altBeacon(company: 0x0118, data: data + [0]) == nil)
        #expect(BeaconFrame.altBeacon(company: 0x0118, data: [0xBE, 0xAD] + data.dropFirst(2)) == nil)
    }

    /// Espruino-Experiments, puck-eddystone.js: service data AA FE, frame type 00, power F8 (−8 dBm at 0 m),
    /// namespace e157bd5df90aad1dc2fb (SHA-1 prefix of "placesgraph1.microsoft.com"), instance 000000000001, RFU.
    @Test func eddystoneUID() throws {
        let data = try #require([UInt8](hex: "00f8" + "e157bd5df90aad1dc2fb" + "000000000001" + "0000"))
        let frame = try #require(BeaconFrame.eddystoneUID(service: BeaconFrame.eddystoneService, data: data))
        #expect(frame.format == .eddystoneUID)
        #expect(frame.identity == .eddystone(
            namespace: [0xe1, 0x57, 0xbd, 0x5d, 0xf9, 0x0a, 0xad, 0x1d, 0xc2, 0xfb], instance: [0, 0, 0, 0, 0, 1]))
        #expect(frame.measuredPower == -8 - 41)
        // Without the two reserved bytes (18 bytes) it is the same frame.
        #expect(BeaconFrame.eddystoneUID(service: "FEAA", data: Array(data.prefix(18))) == frame)
        #expect(BeaconFrame.eddystoneUID(service: BeaconFrame.eddystoneService, data: Array(data.prefix(17))) == nil)
        #expect(BeaconFrame.eddystoneUID(service: BeaconFrame.eddystoneService, data: data + [0]) == nil)
        var url = data
        url[0] = 0x10  // Eddystone-URL
        #expect(BeaconFrame.eddystoneUID(service: BeaconFrame.eddystoneService, data: url) == nil)
        #expect(BeaconFrame.eddystoneUID(service: "0000180f-0000-1000-8000-00805f9b34fb", data: data) == nil)
    }

    @Test func framesOfAnAdvertisement() throws {
        let ibeacon = try #require([UInt8](hex: Self.published))
        let advert = BeaconAdvertisement(
            address: "C0:FF:EE:00:00:01", manufacturerData: [0x004C: ibeacon, 0x0006: [1, 2, 3]],
            serviceData: ["0000180f-0000-1000-8000-00805f9b34fb": [100]], rssi: -60)
        #expect(advert.frames.map(\.format) == [.iBeacon])
    }

    @Test func hex() {
        #expect([UInt8](hex: "00fFa1") == [0, 255, 0xa1])
        #expect([UInt8](hex: "0") == nil)
        #expect([UInt8](hex: "zz") == nil)
        #expect([UInt8](hex: "") == [])
        #expect([0, 255, 0xa1].hex == "00ffa1")
    }

    /// Seeded random bytes of every length around the frames' sizes never trap and decode only exact sizes.
    @Test func randomBytesNeverTrap() {
        var generator = SplitMix64(seed: 13)
        for _ in 0..<20_000 {
            let count = Int(generator.next() % 40)
            var bytes = (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            if count >= 2, generator.next() % 2 == 0 { bytes[0] = 0x02; bytes[1] = 0x15 }
            let company: UInt16 = generator.next() % 2 == 0 ? 0x004C : UInt16(truncatingIfNeeded: generator.next())
            if let frame = BeaconFrame.iBeacon(company: company, data: bytes) {
                #expect(count == 23 && company == 0x004C && frame.format == .iBeacon)
            }
            if BeaconFrame.altBeacon(company: company, data: bytes) != nil { #expect(count == 24) }
            if BeaconFrame.eddystoneUID(service: "feaa", data: bytes) != nil { #expect(count == 18 || count == 20) }
        }
    }
}

/// A seeded generator (Vigna's SplitMix64) so that a failure replays.
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
