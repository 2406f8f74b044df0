import CoreLocationBeacons
import CoreLocationFuzzSupport
import Foundation

// A libFuzzer target for the beacon frame decoders and the recorded-advert parser.
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product CoreLocationFuzzBeaconFrames
//   .build/release/CoreLocationFuzzBeaconFrames -max_len=64 CORPUS_DIR        (see scripts/fuzz.sh)
//
// Input: byte 0 picks the decoder, bytes 1–2 the company ID (little-endian, as on air), the rest is the payload.
// The same bytes are also read as a recorded-advert file.

/// Decodes and checks what no input may break: a frame only from exactly its documented size, identities and
/// powers in range; the recorded-advert parser throws `RecordedAdvertError` or gives non-decreasing times.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let all = Array(bytes)
    if all.count >= 3 {
        let company = UInt16(all[1]) | UInt16(all[2]) << 8
        let payload = Array(all[3...])
        switch all[0] % 3 {
        case 0:
            if let frame = BeaconFrame.iBeacon(company: company, data: payload) {
                precondition(payload.count == 23 && company == BeaconFrame.appleCompany, "iBeacon size/company")
                precondition((-128...127).contains(frame.measuredPower), "power out of a signed byte")
            }
        case 1:
            if let frame = BeaconFrame.altBeacon(company: company, data: payload) {
                precondition(payload.count == 24, "AltBeacon size")
                precondition((-128...127).contains(frame.measuredPower), "power out of a signed byte")
            }
        default:
            if let frame = BeaconFrame.eddystoneUID(service: BeaconFrame.eddystoneService, data: payload) {
                precondition(payload.count == 18 || payload.count == 20, "Eddystone-UID size")
                guard case .eddystone(let namespace, let instance) = frame.identity else {
                    preconditionFailure("an Eddystone frame with another identity")
                }
                precondition(namespace.count == 10 && instance.count == 6, "namespace/instance sizes")
            }
        }
        let advert = BeaconAdvertisement(
            address: "fuzz", manufacturerData: [company: payload], serviceData: [BeaconFrame.eddystoneService: payload],
            rssi: -60)
        precondition(advert.frames.count <= 2, "at most one manufacturer frame and one service frame")
    }
    do {
        let adverts = try RecordedAdvert.parse(String(decoding: all, as: UTF8.self))
        for (a, b) in zip(adverts, adverts.dropFirst()) { precondition(a.t <= b.t, "times decrease") }
        for advert in adverts { _ = try advert.advertisement() }
    } catch is RecordedAdvertError {
    } catch {
        preconditionFailure("the parser threw something other than a RecordedAdvertError: \(error)")
    }
}

@main
enum FuzzEntry {
    static func main() {
        exit(FuzzDriver.main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
            fuzzOne(UnsafeBufferPointer(start: data, count: size))
            return 0
        })
    }
}
