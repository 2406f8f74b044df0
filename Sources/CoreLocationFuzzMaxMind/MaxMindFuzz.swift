import CoreLocationFuzzSupport
import CoreLocationNetwork
import Foundation

// A libFuzzer target for the native MaxMind DB reader (docs/decisions/0060).
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product CoreLocationFuzzMaxMind
//   .build/release/CoreLocationFuzzMaxMind -max_len=32768 CORPUS_DIR        (see scripts/fuzz.sh)
//
// Input: the bytes of a database file (the corpus is MaxMind's test databases). The last 16 bytes are also looked
// up as an IPv6 address and their last 4 as an IPv4 address, so the fuzzer steers look-ups as well as the file.

/// Addresses every opened input is asked about: IPv4 (from the IPv4 start node in an IPv6 tree), IPv6, and the
/// IPv4-mapped alias, at networks MaxMind's test databases hold. Few, so that the fuzzer's time goes to new files.
let fixedAddresses = ["81.2.69.160", "1.1.1.1", "::ffff:81.2.69.160", "2001:218::"].compactMap(IPAddress.init)

/// Opens the bytes and looks addresses up. What no input may break: opening and look-ups either succeed or throw a
/// `NetworkSourceError` with the code documented for them; a location's coordinates are in range; the metadata
/// the reader accepted is of the shape it promises.
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let database: MaxMindDatabase
    do {
        database = try MaxMindDatabase(bytes: bytes)
    } catch let error as NetworkSourceError {
        precondition(error.code == .databaseInvalid, "open threw \(error.code): \(error)")
        return
    } catch {
        preconditionFailure("open threw something other than a NetworkSourceError: \(error)")
    }
    let metadata = database.metadata
    precondition([24, 28, 32].contains(metadata.recordSize) && [4, 6].contains(metadata.ipVersion))
    precondition(metadata.nodeCount > 0 && metadata.binaryFormatMajorVersion == 2)
    var addresses = fixedAddresses
    if bytes.count >= 16 {
        addresses += [IPAddress(v6: Array(bytes.suffix(16))), IPAddress(v4: Array(bytes.suffix(4)))].compactMap { $0 }
    }
    for address in addresses {
        do {
            if let location = try database.lookup(address) {
                precondition(abs(location.latitude) <= 90 && abs(location.longitude) <= 180, "coordinates out of range")
                precondition(location.horizontalAccuracy > 0, "no accuracy")
            }
        } catch let error as NetworkSourceError {
            precondition(error.code == .lookupFailed || error.code == .noCoordinates, "lookup threw \(error.code)")
        } catch {
            preconditionFailure("lookup threw something other than a NetworkSourceError: \(error)")
        }
        do {
            let (_, prefix) = try database.record(for: address)
            precondition((0...128).contains(prefix), "prefix length \(prefix)")
        } catch let error as NetworkSourceError {
            precondition(error.code == .lookupFailed, "record threw \(error.code)")
        } catch {
            preconditionFailure("record threw something other than a NetworkSourceError: \(error)")
        }
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
