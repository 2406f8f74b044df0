/// A MaxMind DB file's metadata (specification 2.0, "Database Metadata"), checked as libmaxminddb checks it: each
/// key of its type (`node_count` uint32, the versions and `record_size` uint16, `build_epoch` uint64, …), a node
/// count above 0, a record size of 24, 28 or 32, IP version 4 or 6, format version 2. `languages` and `description`
/// are optional, as the specification says (libmaxminddb insists on them), but of their types when present.
public struct MaxMindMetadata: Sendable, Hashable {
    public var nodeCount: UInt32
    public var recordSize: UInt16
    public var ipVersion: UInt16
    /// `GeoIP2-City`, `DBIP-City-Lite`…
    public var databaseType: String
    public var languages: [String]
    public var binaryFormatMajorVersion: UInt16
    public var binaryFormatMinorVersion: UInt16
    /// Seconds since 1970 when the database was built.
    public var buildEpoch: UInt64
    /// Description by language code.
    public var descriptions: [String: String]

    /// The largest metadata the specification allows, marker included: the marker is looked for in this much of
    /// the file's end.
    static let maximumSize = 128 * 1024
    static let marker: [UInt8] = [0xab, 0xcd, 0xef] + Array("MaxMind.com".utf8)

    /// The metadata section of `file`: what follows the last marker in the last 128 KiB.
    static func section(of file: UnsafeRawBufferPointer) throws(MaxMindFormatError) -> (start: Int, section: MaxMindSection) {
        let lowest = max(0, file.count - maximumSize)
        var candidate = file.count - marker.count
        while candidate >= lowest {
            if file[candidate] == marker[0] && marker.indices.allSatisfy({ file[candidate + $0] == marker[$0] }) {
                let start = candidate + marker.count
                return (candidate, MaxMindSection(bytes: UnsafeRawBufferPointer(rebasing: file[start...])))
            }
            candidate -= 1
        }
        throw MaxMindFormatError("no metadata marker (\\xAB\\xCD\\xEFMaxMind.com) in the last 128 KiB")
    }

    init(decoding section: MaxMindSection) throws(MaxMindFormatError) {
        let value = try section.value(at: 0)
        guard case .map(let entries) = value else { throw MaxMindFormatError("metadata that is not a map") }
        func required(_ key: String) throws(MaxMindFormatError) -> MaxMindValue {
            guard let member = entries[key] else { throw MaxMindFormatError("metadata without \(key)") }
            return member
        }
        let wrongType = { (key: String) in MaxMindFormatError("metadata \(key) of the wrong type") }
        guard case .uint32(let nodes) = try required("node_count") else { throw wrongType("node_count") }
        guard case .uint16(let record) = try required("record_size") else { throw wrongType("record_size") }
        guard case .uint16(let version) = try required("ip_version") else { throw wrongType("ip_version") }
        guard case .string(let type) = try required("database_type") else { throw wrongType("database_type") }
        guard case .uint16(let major) = try required("binary_format_major_version") else {
            throw wrongType("binary_format_major_version")
        }
        guard case .uint16(let minor) = try required("binary_format_minor_version") else {
            throw wrongType("binary_format_minor_version")
        }
        guard case .uint64(let epoch) = try required("build_epoch") else { throw wrongType("build_epoch") }
        (nodeCount, recordSize, ipVersion, databaseType) = (nodes, record, version, type)
        (binaryFormatMajorVersion, binaryFormatMinorVersion, buildEpoch) = (major, minor, epoch)
        languages = []
        if let list = entries["languages"] {
            guard case .array(let elements) = list else { throw wrongType("languages") }
            for element in elements {
                guard case .string(let language) = element else { throw wrongType("languages") }
                languages.append(language)
            }
        }
        descriptions = [:]
        if let map = entries["description"] {
            guard case .map(let members) = map else { throw wrongType("description") }
            for (language, text) in members {
                guard case .string(let description) = text else { throw wrongType("description") }
                descriptions[language] = description
            }
        }
        guard nodeCount > 0 else { throw MaxMindFormatError("metadata node_count 0") }
        guard [24, 28, 32].contains(recordSize) else { throw MaxMindFormatError("record size \(recordSize)") }
        guard ipVersion == 4 || ipVersion == 6 else { throw MaxMindFormatError("IP version \(ipVersion)") }
        guard binaryFormatMajorVersion == 2 else {
            throw MaxMindFormatError("format version \(binaryFormatMajorVersion) (this reader reads 2)")
        }
    }

    /// Bytes of the search tree: two records per node.
    var searchTreeSize: Int { Int(nodeCount) * Int(recordSize) / 4 }
}
