/// The strings a geocoding answer can carry — place names, administrative areas, time zones, country codes and
/// names — decoded from the string table once, at load, so that building an answer copies references instead
/// of validating and copying UTF-8 on every query. Alternate names stay in the table (they are read only for a
/// `language` and by the forward index's build).
struct AnswerStrings: Sendable {
    /// By string index; "" for index 0 and for strings no answer uses.
    private let text: [String]

    /// - Parameters: the table, and the string indices to decode (any index outside the table is ignored).
    init(_ strings: StringTable, decoding lists: [[Int32]]) {
        var text = [String](repeating: "", count: strings.count + 1)
        for list in lists {
            for index in list where index > 0 && Int(index) < text.count && text[Int(index)].isEmpty {
                text[Int(index)] = strings[Int(index)]
            }
        }
        self.text = text
    }

    /// The string at `index` ("" for 0 and for strings not decoded).
    subscript(index: Int) -> String {
        text.indices.contains(index) ? text[index] : ""
    }

    /// The string at `index`, or nil for index 0 (absent).
    func optional(_ index: Int) -> String? {
        index == 0 ? nil : self[index]
    }
}
