/// A value decoded from a MaxMind DB file (specification 2.0, "Output Data Section"): what `MaxMindDatabase.record`
/// returns for an address, and what the metadata is made of.
public enum MaxMindValue: Sendable, Hashable {
    case string(String)
    case double(Double)
    case bytes([UInt8])
    case uint16(UInt16)
    case uint32(UInt32)
    /// Keys are unique; a map that repeats a key keeps the last value, as the Python reader does.
    case map([String: MaxMindValue])
    case int32(Int32)
    case uint64(UInt64)
    case uint128(UInt128)
    case array([MaxMindValue])
    case boolean(Bool)
    case float(Float)

    /// The value under `key` when this is a map.
    public subscript(key: String) -> MaxMindValue? {
        guard case .map(let entries) = self else { return nil }
        return entries[key]
    }
}
