extension EGM96Geoid {
    /// Reverses `scripts/geoid-extract.py`: base64 → zigzag varints → planar prediction residuals.
    static func decodeGrid() -> [Int16]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encodedByteCount)
        var accumulator: UInt32 = 0
        var bits = 0
        for part in encodedParts {
            let ok = part.withUTF8Buffer { text -> Bool in
                for character in text {
                    guard let sextet = sextet(character) else {
                        if character == UInt8(ascii: "\n") || character == UInt8(ascii: "=") { continue }
                        return false
                    }
                    accumulator = (accumulator << 6) | UInt32(sextet)
                    bits += 6
                    if bits >= 8 {
                        bits -= 8
                        bytes.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                    }
                }
                return true
            }
            guard ok else { return nil }
        }
        guard bytes.count == encodedByteCount else { return nil }

        let count = rows * columns
        var grid = [Int16](repeating: 0, count: count)
        var position = 0
        for index in 0..<count {
            var zigzag: UInt32 = 0
            var shift: UInt32 = 0
            while true {
                guard position < bytes.count, shift < 32 else { return nil }
                let byte = bytes[position]
                position += 1
                zigzag |= UInt32(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            let residual = Int(zigzag >> 1) ^ -Int(zigzag & 1)
            let row = index / columns
            let column = index % columns
            let prediction: Int
            if index == 0 {
                prediction = 0
            } else if row == 0 {
                prediction = Int(grid[index - 1])
            } else if column == 0 {
                prediction = Int(grid[index - columns])
            } else {
                prediction = Int(grid[index - 1]) + Int(grid[index - columns]) - Int(grid[index - columns - 1])
            }
            guard let value = Int16(exactly: prediction + residual) else { return nil }
            grid[index] = value
        }
        return position == bytes.count ? grid : nil
    }

    private static func sextet(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): 62
        case UInt8(ascii: "/"): 63
        default: nil
        }
    }
}
