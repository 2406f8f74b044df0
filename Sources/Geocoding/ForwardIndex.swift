/// Normalised name → places, over every place's GeoNames name and its alternate names.
/// Built on the first forward query (about 0.5 s for ~300 000 names) and kept.
struct ForwardIndex: Sendable {
    /// Places per normalised name; the flag says whether it is the place's main name.
    let names: [String: [Entry]]

    struct Entry: Sendable {
        let place: Int32
        /// String index of the name that matched (the main name or one alternate).
        let name: Int32
        var isMainName: Bool
    }

    init(_ gazetteer: Gazetteer) {
        var names: [String: [Entry]] = [:]
        var folded: [Int32: String] = [:]
        func fold(_ index: Int32) -> String {
            if let known = folded[index] { return known }
            let value = GazetteerText.normalize(gazetteer.strings[Int(index)])
            folded[index] = value
            return value
        }
        let places = gazetteer.places
        for place in 0..<places.count {
            let main = fold(places.name[place])
            names[main, default: []].append(Entry(place: Int32(place), name: places.name[place], isMainName: true))
            for slot in Int(places.alternateStart[place])..<Int(places.alternateStart[place + 1]) {
                let key = fold(places.alternates[slot])
                guard key != main else { continue }
                names[key, default: []].append(
                    Entry(place: Int32(place), name: places.alternates[slot], isMainName: false))
            }
        }
        self.names = names
    }
}
