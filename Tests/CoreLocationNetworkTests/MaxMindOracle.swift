import CoreLocationNetwork
import Foundation

/// Fixtures/mmdb/oracle.json, written by Fixtures/mmdb/make-oracle.py: what PyPI maxminddb 3.2.0's pure-Python
/// reader and Debian's `mmdblookup` (libmaxminddb 1.7.1) say about MaxMind's test databases.
struct MaxMindOracle: Decodable {
    struct Database: Decodable {
        var libmaxminddbOpens: Bool
        var pythonOpens: Bool
        var metadata: Metadata?
        var lookups: [Lookup]?
        var locations: [Location]?
    }

    struct Metadata: Decodable, Equatable {
        var nodeCount: UInt32
        var recordSize: UInt16
        var ipVersion: UInt16
        var databaseType: String
        var languages: [String]
        var binaryFormatMajorVersion: UInt16
        var binaryFormatMinorVersion: UInt16
        var buildEpoch: UInt64
        var descriptions: [String: String]
    }

    /// `[address, prefix length, record]`: the record is a key of `records`, null (no entry), "error" (the Python
    /// reader refuses it) or "untyped" (Python reads it, libmaxminddb cannot print it).
    struct Lookup: Decodable {
        var address: String
        var prefixLength: Int?
        var record: String?

        init(from decoder: any Decoder) throws {
            var row = try decoder.unkeyedContainer()
            address = try row.decode(String.self)
            prefixLength = try row.decodeIfPresent(Int.self)
            record = try row.decodeIfPresent(String.self)
        }
    }

    /// `[address, outcome]`: what the libmaxminddb-backed `MaxMindDatabase.lookup` returned.
    struct Location: Decodable {
        enum Outcome: Equatable {
            case none
            case error(String)
            /// Coordinates as the hexadecimal bit patterns of the doubles.
            case location(latitude: String, longitude: String, accuracy: Double, fromDatabase: Bool, city: String?,
                country: String?)
        }

        var address: String
        var outcome: Outcome

        init(from decoder: any Decoder) throws {
            var row = try decoder.unkeyedContainer()
            address = try row.decode(String.self)
            if try row.decodeNil() {
                outcome = .none
            } else if let error = try? row.decode(String.self) {
                outcome = .error(error)
            } else {
                var fields = try row.nestedUnkeyedContainer()
                outcome = .location(
                    latitude: try fields.decode(String.self), longitude: try fields.decode(String.self),
                    accuracy: try fields.decode(Double.self), fromDatabase: try fields.decode(Bool.self),
                    city: try fields.decodeIfPresent(String.self), country: try fields.decodeIfPresent(String.self))
            }
        }
    }

    /// A record as both readers agree on it: maps, arrays, and leaves `type:value` with libmaxminddb's type names
    /// and exact values (doubles and floats as the hexadecimal bit pattern, bytes in hexadecimal).
    indirect enum Tagged: Decodable, Equatable, CustomStringConvertible {
        case map([String: Tagged])
        case array([Tagged])
        case leaf(String)

        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer()
            if let leaf = try? value.decode(String.self) {
                self = .leaf(leaf)
            } else if let array = try? value.decode([Tagged].self) {
                self = .array(array)
            } else {
                self = .map(try value.decode([String: Tagged].self))
            }
        }

        init(_ value: MaxMindValue) {
            func hex<T: FixedWidthInteger>(_ bits: T) -> String {
                let digits = String(bits, radix: 16)
                return String(repeating: "0", count: T.bitWidth / 4 - digits.count) + digits
            }
            switch value {
            case .map(let entries): self = .map(entries.mapValues(Tagged.init))
            case .array(let elements): self = .array(elements.map(Tagged.init))
            case .string(let text): self = .leaf("utf8_string:" + text)
            case .double(let number): self = .leaf("double:" + hex(number.bitPattern))
            case .float(let number): self = .leaf("float:" + hex(number.bitPattern))
            case .bytes(let bytes): self = .leaf("bytes:" + bytes.map { hex($0) }.joined())
            case .boolean(let flag): self = .leaf("boolean:\(flag)")
            case .uint16(let number): self = .leaf("uint16:\(number)")
            case .uint32(let number): self = .leaf("uint32:\(number)")
            case .uint64(let number): self = .leaf("uint64:\(number)")
            case .uint128(let number): self = .leaf("uint128:\(number)")
            case .int32(let number): self = .leaf("int32:\(number)")
            }
        }

        /// FNV-1a (64-bit) over the record as make-oracle.py computes it: the oracle keeps only this for records of
        /// more than 64 KiB (`{"#fnv1a64": …}`).
        var fnv1a64: String {
            var digest: UInt64 = 0xcbf2_9ce4_8422_2325
            func feed<S: Sequence<UInt8>>(_ bytes: S) {
                for byte in bytes { digest = (digest ^ UInt64(byte)) &* 0x100_0000_01b3 }
            }
            func walk(_ value: Tagged) {
                switch value {
                case .leaf(let text):
                    feed(text.utf8)
                    feed([0])
                case .array(let elements):
                    feed("[".utf8)
                    elements.forEach(walk)
                    feed("]".utf8)
                case .map(let entries):
                    feed("{".utf8)
                    for key in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                        feed(key.utf8)
                        feed([0])
                        if let member = entries[key] { walk(member) }
                    }
                    feed("}".utf8)
                }
            }
            walk(self)
            let digits = String(digest, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }

        /// Whether this (a decoded record) is `expected`, or has its digest when the oracle kept only that.
        func matches(_ expected: Tagged) -> Bool {
            if case .map(let entries) = expected, entries.count == 1, case .leaf(let digest)? = entries["#fnv1a64"] {
                return fnv1a64 == digest
            }
            return self == expected
        }

        var description: String {
            switch self {
            case .leaf(let text): text
            case .array(let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
            case .map(let entries):
                "{" + entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ") + "}"
            }
        }
    }

    var python: String
    var libmaxminddb: String
    var databases: [String: Database]
    var records: [String: Tagged]

    static let shared: MaxMindOracle? = {
        guard let data = try? Data(contentsOf: Fixtures.directory.appendingPathComponent("mmdb/oracle.json")) else {
            return nil
        }
        return try? JSONDecoder().decode(MaxMindOracle.self, from: data)
    }()

    static var names: [String] { shared.map { $0.databases.keys.sorted() } ?? [] }
}

extension MaxMindOracle.Location.Outcome {
    /// What the native reader's `lookup` gave, in the oracle's terms.
    init(_ body: () throws -> IPLocation?) {
        do {
            guard let location = try body() else {
                self = .none
                return
            }
            func hex(_ number: Double) -> String {
                let digits = String(number.bitPattern, radix: 16)
                return String(repeating: "0", count: 16 - digits.count) + digits
            }
            self = .location(
                latitude: hex(location.latitude), longitude: hex(location.longitude),
                accuracy: location.horizontalAccuracy, fromDatabase: location.accuracyFromDatabase, city: location.city,
                country: location.countryCode)
        } catch let error as NetworkSourceError {
            self = .error("\(error.code)")
        } catch {
            self = .error("\(error)")
        }
    }
}
