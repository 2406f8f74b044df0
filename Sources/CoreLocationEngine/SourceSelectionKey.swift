/// What `LocationEngine.selectSources` decides from: the accuracy the clients demand and, for each
/// source in order, whether it is finished, available and powered. Equal keys give the same choice, and
/// the powered bits say that choice is already in force.
struct SourceSelectionKey: Equatable {
    /// Sources a key can describe (three bits each in `states`); beyond, there is no key and every
    /// selection is made afresh.
    static let maximumSources = 21

    var demand: Double?
    var states: UInt64

    init?(demand: Double?, order: [SourceID], sources: [SourceID: LocationEngine.SourceState]) {
        guard order.count <= Self.maximumSources else { return nil }
        // NaN never equals itself: such a demand gets no key rather than a key that never matches.
        if let demand, demand.isNaN { return nil }
        self.demand = demand
        var states: UInt64 = 0
        for (position, id) in order.enumerated() {
            guard let index = sources.index(forKey: id) else { continue }
            // Three fields read in place, not the whole state copied: this runs after every input.
            let bits = (sources.values[index].isFinished ? 1 : 0) | (sources.values[index].isAvailable ? 2 : 0)
                | (sources.values[index].powered ? 4 : 0)
            states |= UInt64(bits) << (3 * UInt64(position))
        }
        self.states = states
    }
}
