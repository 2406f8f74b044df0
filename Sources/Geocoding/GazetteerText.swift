/// Text folding for name matching: compatibility decomposition (folds full-width and other presentation
/// forms), combining marks removed, lower-cased, punctuation and runs of spaces collapsed to one space.
/// "Zürich" → "zurich", "ＴＯＫＹＯ" → "tokyo", "Saint-Denis" → "saint denis". The build script's
/// `fold` does the same for de-duplicating alternate names.
public enum GazetteerText {
    public static func normalize(_ text: some StringProtocol) -> String {
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
}
