/// Text folding for name matching: compatibility decomposition (folds full-width and other presentation
/// forms), combining marks removed, lower-cased, punctuation and runs of spaces collapsed to one space.
/// "Zürich" → "zurich", "ＴＯＫＹＯ" → "tokyo", "Saint-Denis" → "saint denis". The build script's
/// `fold` does the same for de-duplicating alternate names.
public enum GazetteerText {
    public static func normalize(_ text: some StringProtocol) -> String {
        if let ascii = normalizeASCII(text) { return ascii }
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in String(text).decomposedStringWithCompatibilityMapping.unicodeScalars {
            let properties = scalar.properties
            switch properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .format:
                continue
            case .spaceSeparator, .dashPunctuation, .connectorPunctuation, .otherPunctuation,
                 .openPunctuation, .closePunctuation, .initialPunctuation, .finalPunctuation, .control:
                pendingSpace = !out.isEmpty
            default:
                if pendingSpace { out.append(" ") }
                pendingSpace = false
                out.append(contentsOf: properties.lowercaseMapping.unicodeScalars)
            }
        }
        return String(out)
    }

    /// The same folding for pure-ASCII text without Unicode normalization (most GeoNames names), or nil.
    private static func normalizeASCII(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var pendingSpace = false
        for byte in text.utf8 {
            switch byte {
            case 0x80...: return nil
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"):
                if pendingSpace { bytes.append(UInt8(ascii: " ")) }
                pendingSpace = false
                bytes.append(byte | (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? 0x20 : 0))
            case UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "<"), UInt8(ascii: "="), UInt8(ascii: ">"),
                 UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                // Symbols (not punctuation) are kept, as the Unicode path keeps them.
                if pendingSpace { bytes.append(UInt8(ascii: " ")) }
                pendingSpace = false
                bytes.append(byte)
            default:
                pendingSpace = !bytes.isEmpty
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
