/// Byte tests on eight bytes at once ("SIMD within a register", Hacker's Delight §6-1). Each answers
/// "is there any such byte" exactly, whatever the byte order.
enum SWAR {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Any byte equal to zero.
    @inline(__always)
    static func hasZero(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highBits != 0
    }

    /// Any byte equal to `byte`.
    @inline(__always)
    static func hasByte(_ word: UInt64, _ byte: UInt8) -> Bool {
        hasZero(word ^ (ones &* UInt64(byte)))
    }

    /// Any byte below 0x20 (control characters).
    @inline(__always)
    static func hasByteBelow0x20(_ word: UInt64) -> Bool {
        (word &- ones &* 0x20) & ~word & highBits != 0
    }

    /// Any byte of 0x7F or more (DEL and non-ASCII).
    @inline(__always)
    static func hasByteAbove0x7E(_ word: UInt64) -> Bool {
        (word | (word &+ ones)) & highBits != 0
    }
}
