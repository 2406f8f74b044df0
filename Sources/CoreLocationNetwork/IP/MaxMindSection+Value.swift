/// Whole values, for the metadata and `MaxMindDatabase.record`, within the limits of the specification's "Reader
/// Resource Limits", counted as libmaxminddb and the Python reader count them (so their limit test databases are
/// accepted and refused alike):
/// - depth: entering a map or an array, or following a pointer, is one level; more than 512 is refused (pointer
///   cycles end here);
/// - values: the root is one, a map charges two per pair and an array one per element *before* they are decoded;
///   more than 65 536 is refused (a pointer fan-out ends here);
/// - payload: every string and bytes value is charged its length where it is decoded, again at each pointer to it;
///   more than 2 MiB is refused (payload amplification ends here), before anything is copied.
extension MaxMindSection {
    static let maximumDepth = 512
    static let maximumValues = 1 << 16
    static let maximumPayload = 1 << 21

    struct Budget {
        var values = MaxMindSection.maximumValues - 1
        var depth = 0
        var payload = MaxMindSection.maximumPayload
    }

    /// The whole value at `offset`.
    func value(at offset: Int) throws(MaxMindFormatError) -> MaxMindValue {
        var budget = Budget()
        return try value(at: offset, budget: &budget, pointerTarget: false).value
    }

    private func value(at offset: Int, budget: inout Budget, pointerTarget: Bool) throws(MaxMindFormatError)
        -> (value: MaxMindValue, next: Int)
    {
        let field = try self.field(at: offset)
        switch field.type {
        case .pointer:
            guard !pointerTarget else { throw MaxMindFormatError("a pointer to a pointer", at: offset) }
            try enter(&budget, at: offset)
            let target = try value(at: field.size, budget: &budget, pointerTarget: true).value
            budget.depth -= 1
            return (target, field.next)
        case .map:
            try charge(2 * field.size, &budget, at: offset)
            try enter(&budget, at: offset)
            var entries: [String: MaxMindValue] = [:]
            entries.reserveCapacity(field.size)
            var next = field.payload
            for _ in 0..<field.size {
                let (key, afterKey) = try value(at: next, budget: &budget, pointerTarget: false)
                guard case .string(let name) = key else {
                    throw MaxMindFormatError("a map key that is not a string", at: next)
                }
                let (member, afterValue) = try value(at: afterKey, budget: &budget, pointerTarget: false)
                entries[name] = member
                next = afterValue
            }
            budget.depth -= 1
            return (.map(entries), next)
        case .array:
            try charge(field.size, &budget, at: offset)
            try enter(&budget, at: offset)
            var elements: [MaxMindValue] = []
            elements.reserveCapacity(field.size)
            var next = field.payload
            for _ in 0..<field.size {
                let (element, after) = try value(at: next, budget: &budget, pointerTarget: false)
                elements.append(element)
                next = after
            }
            budget.depth -= 1
            return (.array(elements), next)
        case .string, .bytes:
            budget.payload -= field.size
            guard budget.payload >= 0 else { throw MaxMindFormatError("a record beyond the decoder's limits (payload)") }
            let payload = UnsafeRawBufferPointer(rebasing: bytes[field.payload..<field.payload + field.size])
            if field.type == .bytes { return (.bytes(Array(payload)), field.next) }
            // The specification says valid UTF-8; the Python reader refuses anything else, and so do we.
            guard let text = String(validating: payload, as: UTF8.self) else {
                throw MaxMindFormatError("a string that is not UTF-8", at: offset)
            }
            return (.string(text), field.next)
        default:
            return (scalar(field), field.next)
        }
    }

    /// A fixed-size value; `field(at:)` checked its size.
    private func scalar(_ field: MaxMindField) -> MaxMindValue {
        let at = field.payload
        switch field.type {
        case .double: return .double(Double(bitPattern: unsigned(at, 8)))
        case .float: return .float(Float(bitPattern: UInt32(unsigned(at, 4))))
        case .uint16: return .uint16(UInt16(unsigned(at, field.size)))
        case .uint32: return .uint32(UInt32(unsigned(at, field.size)))
        // Shorter than 4 bytes: positive; 4 bytes: two's complement (specification 2.0).
        case .int32: return .int32(Int32(truncatingIfNeeded: unsigned(at, field.size)))
        case .uint64: return .uint64(unsigned(at, field.size))
        case .uint128:
            let lowLength = min(field.size, 8)
            let low = unsigned(at + field.size - lowLength, lowLength)
            let high = unsigned(at, field.size - lowLength)
            return .uint128(UInt128(high) << 64 | UInt128(low))
        default: return .boolean(field.size != 0)
        }
    }

    private func charge(_ values: Int, _ budget: inout Budget, at offset: Int) throws(MaxMindFormatError) {
        budget.values -= values
        guard budget.values >= 0 else { throw MaxMindFormatError("a record beyond the decoder's limits (values)", at: offset) }
    }

    private func enter(_ budget: inout Budget, at offset: Int) throws(MaxMindFormatError) {
        budget.depth += 1
        guard budget.depth <= Self.maximumDepth else {
            throw MaxMindFormatError("a record nested beyond the decoder's limits", at: offset)
        }
    }
}
