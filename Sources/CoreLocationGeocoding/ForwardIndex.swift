/// Normalised name → places, over every place's GeoNames name and its alternate names.
///
/// Built on the first forward query and kept (about 0.5–0.8 s in a release build, most of it Unicode
/// normalisation of the ~160 000 non-ASCII names). Entries of one name are chained through `next`
/// rather than kept in an array per name: 300 000 small arrays cost more than the names themselves.
struct ForwardIndex: Sendable {
    struct Entry: Sendable {
        let place: Int32
        /// String index of the name that matched (the main name or one alternate).
        let name: Int32
        let isMainName: Bool
    }

    private var heads: [String: Int32] = [:]
    private var entries: [Entry] = []
    private var next: [Int32] = []

    init(_ gazetteer: Gazetteer) {
        let places = gazetteer.places
        heads.reserveCapacity(places.count + places.alternates.count)
        entries.reserveCapacity(places.count + places.alternates.count)
        next.reserveCapacity(places.count + places.alternates.count)
        for place in 0..<places.count {
            let main = GazetteerText.normalize(gazetteer.strings[Int(places.name[place])])
            add(main, Entry(place: Int32(place), name: places.name[place], isMainName: true))
            for slot in Int(places.alternateStart[place])..<Int(places.alternateStart[place + 1]) {
                let key = GazetteerText.normalize(gazetteer.strings[Int(places.alternates[slot])])
                guard key != main else { continue }
                add(key, Entry(place: Int32(place), name: places.alternates[slot], isMainName: false))
            }
        }
    }

    private mutating func add(_ key: String, _ entry: Entry) {
        let index = Int32(entries.count)
        entries.append(entry)
        next.append(heads.updateValue(index, forKey: key) ?? -1)
    }

    /// The places with this normalised name (most recently added first).
    func entries(named key: String) -> [Entry] {
        var result: [Entry] = []
        var cursor = heads[key] ?? -1
        while cursor >= 0 {
            result.append(entries[Int(cursor)])
            cursor = next[Int(cursor)]
        }
        return result
    }
}
