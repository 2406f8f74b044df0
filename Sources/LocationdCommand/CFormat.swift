/// The text C's `printf` writes for the conversions the gpsd front door uses, made without calling it: gpsd formats
/// with `snprintf`, so its clients see `%.Nf` correctly rounded from the binary value (an exact tie to even).
///
/// Why not `String(format:)`: on Linux it goes through `NSString` and a locale, and a TPV has 14 numbers; measured,
/// it was a fifth of the front door's CPU and stood between a fix and its first client. `vsnprintf` through
/// `withVaList` still cost a dynamic cast per argument (Benchmarks/gpsd-protocol, 2026-11-29). `fixed` is exact for
/// every finite `Double` and 0…20 decimals (the test compares it with glibc's `printf` over random and tie values).
enum CFormat {
    /// `%0W.Nf`: `value` with `digits` decimals (clamped to 0…20), rounded as glibc rounds, zero-padded after the
    /// sign to `width` characters; `nan`, `inf` and `-inf` (never padded) for values that are not finite, as glibc.
    static func fixed(_ value: Double, _ digits: Int, width: Int = 0) -> String {
        var bytes: [UInt8] = []
        appendFixed(value, digits, width: width, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `fixed`, appended to `bytes`.
    static func appendFixed(_ value: Double, _ digits: Int, width: Int = 0, to bytes: inout [UInt8]) {
        guard value.isFinite else {
            let text = value.isNaN ? (value.sign == .minus ? "-nan" : "nan") : value < 0 ? "-inf" : "inf"
            bytes.append(contentsOf: text.utf8)
            return
        }
        let digits = min(max(digits, 0), 20)
        if value.sign == .minus { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        // From 2^52 on every Double is an integer.
        guard magnitude < 0x1p52 else {
            let whole = magnitude < 0x1p64 ? String(UInt64(magnitude)) : large(magnitude)
            let length = whole.utf8.count + (digits > 0 ? digits + 1 : 0) + (value.sign == .minus ? 1 : 0)
            appendZeros(width - length, to: &bytes)
            bytes.append(contentsOf: whole.utf8)
            if digits > 0 {
                bytes.append(UInt8(ascii: "."))
                appendZeros(digits, to: &bytes)
            }
            return
        }
        // magnitude = significand × 2^exponent exactly; significand < 2^53, and 10^20 < 2^67, so their product
        // fits in 128 bits, and the scaled value's rounding is exact integer arithmetic.
        let significand = UInt128(magnitude.significandBitPattern | (magnitude.isNormal ? 1 << 52 : 0))
        let exponent = magnitude.isNormal ? Int(magnitude.exponent) - 52 : -1074
        let scaled = significand * power10[digits]
        var units: UInt128 = 0  // scaled < 2^120: at a shift of 128 or more, below half a unit
        if -exponent < 128 {
            let shift = -exponent
            units = scaled >> shift
            let remainder = scaled & ((1 << shift) - 1)
            let half = UInt128(1) << (shift - 1)
            if remainder > half || (remainder == half && units & 1 == 1) { units += 1 }
        }
        let (whole, fraction) = units.quotientAndRemainder(dividingBy: power10[digits])
        // whole ≤ 2^52; a fraction of up to 19 digits is below 2^64.
        let wholeValue = UInt64(truncatingIfNeeded: whole)
        let length = decimalCount(wholeValue) + (digits > 0 ? digits + 1 : 0) + (value.sign == .minus ? 1 : 0)
        appendZeros(width - length, to: &bytes)
        appendDecimal(wholeValue, width: 1, to: &bytes)
        guard digits > 0 else { return }
        bytes.append(UInt8(ascii: "."))
        if digits < 20 {
            appendDecimal(UInt64(truncatingIfNeeded: fraction), width: digits, to: &bytes)
        } else {
            let text = String(fraction)
            appendZeros(digits - text.utf8.count, to: &bytes)
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// A non-negative integer with at least `width` digits, zero-padded (`%0Nd`).
    static func padded(_ value: some BinaryInteger, _ width: Int) -> String {
        padded(String(value), width)
    }

    /// `value` in decimal, zero-padded to `width` digits, appended to `bytes`.
    static func appendDecimal(_ value: UInt64, width: Int, to bytes: inout [UInt8]) {
        let count = decimalCount(value)
        appendZeros(width - count, to: &bytes)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var rest = value
        for index in stride(from: start + count - 1, through: start, by: -1) {
            bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
    }

    /// Hexadecimal digits, zero-padded to `width` (`%0Nx`, `%0NX` when `uppercase`).
    static func hex(_ value: some BinaryInteger, _ width: Int, uppercase: Bool = false) -> String {
        padded(String(value, radix: 16, uppercase: uppercase), width)
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    private static func decimalCount(_ value: UInt64) -> Int {
        var count = 1
        var rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }

    private static func appendZeros(_ count: Int, to bytes: inout [UInt8]) {
        if count > 0 { bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count)) }
    }

    private static let power10: [UInt128] = (0...20).map { exponent in
        (0..<exponent).reduce(UInt128(1)) { product, _ in product * 10 }
    }

    /// The exact decimal digits of an integer magnitude of 2^64 or more.
    private static func large(_ magnitude: Double) -> String {
        var exponent = Int(magnitude.exponent) - 52
        // The value's decimal digits, little-endian in base 10^9, doubled `exponent` times.
        var limbs: [UInt64] = []
        var significand = magnitude.significandBitPattern | 1 << 52
        while significand > 0 {
            limbs.append(significand % 1_000_000_000)
            significand /= 1_000_000_000
        }
        while exponent > 0 {
            var carry: UInt64 = 0
            for index in limbs.indices {
                let doubled = limbs[index] * 2 + carry
                limbs[index] = doubled % 1_000_000_000
                carry = doubled / 1_000_000_000
            }
            if carry > 0 { limbs.append(carry) }
            exponent -= 1
        }
        var text = String(limbs.last ?? 0)
        for limb in limbs.dropLast().reversed() { text += padded(limb, 9) }
        return text
    }
}
