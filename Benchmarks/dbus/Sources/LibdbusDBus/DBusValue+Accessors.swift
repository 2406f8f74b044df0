extension DBusValue {
    /// The value inside any number of variants.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    /// A string, object path or signature (through variants).
    public var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    /// Any integer type as `Int64` (through variants); `nil` for other types and for a `UInt64` beyond `Int64`.
    public var integer: Int64? {
        switch unwrapped {
        case .byte(let value): Int64(value)
        case .int16(let value): Int64(value)
        case .uint16(let value): Int64(value)
        case .int32(let value): Int64(value)
        case .uint32(let value): Int64(value)
        case .int64(let value): value
        case .uint64(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// A double, or any integer converted (through variants).
    public var double: Double? {
        if case .double(let value) = unwrapped { return value }
        return integer.map(Double.init)
    }

    public var bool: Bool? {
        if case .bool(let value) = unwrapped { return value }
        return nil
    }

    /// The elements of an array (through variants).
    public var elements: [DBusValue]? {
        if case .array(_, let elements) = unwrapped { return elements }
        return nil
    }

    /// An array of bytes (`ay`, e.g. an SSID) (through variants).
    public var bytes: [UInt8]? {
        guard let elements else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(elements.count)
        for element in elements {
            guard case .byte(let byte) = element else { return nil }
            bytes.append(byte)
        }
        return bytes
    }

    /// A dictionary with string or object-path keys (`a{sv}`, `a{oa{sa{sv}}}`…), values as they are (variants
    /// kept; read them through the accessors, which look through variants).
    public var stringKeyed: [String: DBusValue]? {
        guard let elements else { return nil }
        var result: [String: DBusValue] = [:]
        for element in elements {
            guard case .dictEntry(let key, let value) = element, let name = key.string else { return nil }
            result[name] = value
        }
        return result
    }
}
