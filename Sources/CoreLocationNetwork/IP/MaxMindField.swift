/// The data types of the MaxMind DB format (specification 2.0, "Output Data Section"); the raw value is the type
/// number. Types 12 (data cache container) and 13 (end marker) are deprecated, never used, and refused.
enum MaxMindType: UInt8, Sendable {
    case pointer = 1, string, double, bytes, uint16, uint32, map, int32, uint64, uint128, array
    case boolean = 14, float
}

/// One field's header as read from its control byte(s): no payload is copied.
struct MaxMindField: Sendable {
    var type: MaxMindType
    /// Payload length in bytes; entries for a map (pairs) or an array (elements); 0 or 1 for a boolean; for a
    /// pointer, the offset it points to.
    var size: Int
    /// Offset of the payload (a map's first key, an array's first element).
    var payload: Int
    /// Offset of what follows the field. For a map or an array: its payload (the entries follow it).
    var next: Int
}
