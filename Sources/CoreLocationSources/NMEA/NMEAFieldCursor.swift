/// Walks the comma-separated fields of one sentence body in place, without copying or allocating.
///
/// The body is the bytes between the address field and the `*` (checksum already verified). Each
/// `next()` returns the following field as a byte range of the caller's buffer; past the last field
/// it returns empty fields and `isExhausted` turns true, so optional trailing fields of newer NMEA
/// versions read as absent.
struct NMEAFieldCursor {
    let bytes: UnsafeRawBufferPointer
    private(set) var position: Int
    let end: Int
    /// True once a `next()` asked for a field beyond the last one.
    private(set) var isExhausted = false

    init(bytes: UnsafeRawBufferPointer, start: Int, end: Int) {
        self.bytes = bytes
        self.position = start
        self.end = end
        if start > end { isExhausted = true }
    }

    /// Fields not yet read (0 once exhausted).
    var remainingCount: Int {
        if isExhausted { return 0 }
        var count = 1
        var index = position
        while index < end {
            if bytes[index] == UInt8(ascii: ",") { count += 1 }
            index += 1
        }
        return count
    }

    mutating func next() -> NMEAField {
        if isExhausted { return NMEAField(bytes: bytes, start: end, end: end) }
        var index = position
        while index < end && bytes[index] != UInt8(ascii: ",") { index += 1 }
        let field = NMEAField(bytes: bytes, start: position, end: index)
        if index >= end {
            isExhausted = true
            position = end
        } else {
            position = index + 1
        }
        return field
    }

    mutating func skip(_ count: Int) {
        for _ in 0..<count { _ = next() }
    }
}

/// One field: a byte range of the sentence. Numbers are decoded by hand (no `String`, no Foundation).
struct NMEAField {
    let bytes: UnsafeRawBufferPointer
    let start: Int
    let end: Int

    var isEmpty: Bool { start >= end }
    var count: Int { end - start }

    /// The single character of a one-letter field (`A`, `N`, …), nil when empty or longer.
    var character: UInt8? { count == 1 ? bytes[start] : nil }

    /// The first character, nil when empty (mode fields of GNS hold one letter per system).
    var firstCharacter: UInt8? { isEmpty ? nil : bytes[start] }

    /// A non-negative or signed decimal integer; nil when empty; `.invalid` when not a number.
    var integer: NMEAValue<Int> {
        if isEmpty { return .absent }
        var index = start
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < end, end - index <= 9 else { return .invalid }
        var value = 0
        while index < end {
            let digit = Int(bytes[index]) &- 48
            guard digit >= 0 && digit <= 9 else { return .invalid }
            value = value &* 10 &+ digit
            index += 1
        }
        return .value(negative ? -value : value)
    }

    /// A decimal number `[+-]ddd[.ddd]`.
    ///
    /// Method: the digits are accumulated into an integer mantissa and divided by an exact power of
    /// ten, so for up to 15 significant digits the result is the correctly rounded double (both
    /// operands are exact and IEEE division rounds once) — the same value `strtod` gives. Longer
    /// inputs (more than 15 digits) are `.invalid`: no NMEA field needs them.
    var decimal: NMEAValue<Double> {
        if isEmpty { return .absent }
        var index = start
        var negative = false
        if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var mantissa: Int64 = 0
        var digits = 0
        var fractionDigits = 0
        var seenPoint = false
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                if seenPoint { return .invalid }
                seenPoint = true
            } else {
                let digit = Int64(byte) &- 48
                guard digit >= 0 && digit <= 9 else { return .invalid }
                mantissa = mantissa &* 10 &+ digit
                digits += 1
                if seenPoint { fractionDigits += 1 }
            }
            index += 1
        }
        guard digits > 0, digits <= 15 else { return .invalid }
        var value = Double(mantissa)
        if fractionDigits > 0 { value /= NMEAField.powersOfTen[fractionDigits] }
        return .value(negative ? -value : value)
    }

    /// Exact powers of ten 10^0…10^15 (all exactly representable in binary64).
    private static let powersOfTen: [Double] = [
        1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
    ]

    /// UTC time of day `hhmmss[.sss]`, in seconds since midnight (0 ≤ t < 86 401: a leap second is
    /// allowed).
    var timeOfDay: NMEAValue<Double> {
        guard !isEmpty else { return .absent }
        guard count >= 6,
            let hours = twoDigits(at: start), let minutes = twoDigits(at: start + 2),
            hours < 24, minutes < 60
        else { return .invalid }
        let secondsField = NMEAField(bytes: bytes, start: start + 4, end: end)
        guard case .value(let seconds) = secondsField.decimal, seconds >= 0, seconds < 61 else { return .invalid }
        return .value(Double(hours * 3600 + minutes * 60) + seconds)
    }

    /// A latitude `ddmm.mmmm` or longitude `dddmm.mmmm` with its hemisphere letter, in signed degrees.
    /// - Parameter degreeDigits: 2 for latitude, 3 for longitude.
    func angle(degreeDigits: Int, hemisphere: NMEAField, positive: UInt8, negative: UInt8, limit: Double)
        -> NMEAValue<Double>
    {
        if isEmpty && hemisphere.isEmpty { return .absent }
        guard count > degreeDigits + 1, let sign = hemisphere.character, sign == positive || sign == negative else {
            return .invalid
        }
        // Some receivers drop leading zeros; the minutes always have two integer digits before the
        // point, so the degrees are whatever stands before them.
        var point = start
        while point < end && bytes[point] != UInt8(ascii: ".") { point += 1 }
        guard point - start >= 3 else { return .invalid }
        let degreesField = NMEAField(bytes: bytes, start: start, end: point - 2)
        let minutesField = NMEAField(bytes: bytes, start: point - 2, end: end)
        guard case .value(let degrees) = degreesField.integer, degrees >= 0,
            case .value(let minutes) = minutesField.decimal, minutes >= 0, minutes < 60
        else { return .invalid }
        let value = Double(degrees) + minutes / 60
        guard value <= limit else { return .invalid }
        return .value(sign == negative ? -value : value)
    }

    private func twoDigits(at index: Int) -> Int? {
        let high = Int(bytes[index]) &- 48
        let low = Int(bytes[index + 1]) &- 48
        guard high >= 0, high <= 9, low >= 0, low <= 9 else { return nil }
        return high * 10 + low
    }
}

/// A field's decoded value: present, empty, or present but malformed.
enum NMEAValue<Wrapped> {
    case value(Wrapped)
    case absent
    case invalid

    var optional: Wrapped? {
        if case .value(let value) = self { return value }
        return nil
    }
}
