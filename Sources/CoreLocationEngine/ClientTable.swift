/// The engine's clients by identifier, and what the engine asks of all of them after every input — the earliest
/// deadline (`LocationEngine.nextDeadline`) and the accuracy they demand (`demandedAccuracy`) — kept up to date at
/// each change of one client, so neither is a pass over every client (issue 37, item 2; decision 0092's sibling
/// 0093).
///
/// Every change of a client goes through the subscript's setter, `modify`, `updateValue` or `removeValue`, and each
/// recomputes that one client's `Summary` and moves it in the multisets: O(log n) amortized. The dictionary API the
/// engine's extensions use (`clients[id]`, `values`, `keys`) is kept, so they read and write as before.
struct ClientTable: Sendable {
    /// What one client contributes to the engine-wide questions.
    struct Summary: Equatable, Sendable {
        /// The earliest of its request's budget, its unknown-location timer, its deferral's end, its pause's look.
        var deadline: Double?
        /// What it demands while active: its own accuracy, or the reduced demand.
        var activeDemand: Double?
        /// Authorized and in a pause's look.
        var pauseProbing = false
        /// Authorized and using the significant-change service.
        var significant = false
        /// Authorized and using the visits service.
        var visits = false
        /// Using the visits service, authorized or not (what keeps the visit detector).
        var visitsRequested = false
    }

    private var storage: [ClientID: LocationEngine.ClientState] = [:]
    private var summaries: [ClientID: Summary] = [:]
    private var deadlines = MinMultiset()
    private var demands = MinMultiset()
    private(set) var pauseProbingCount = 0
    private(set) var significantCount = 0
    private(set) var visitsCount = 0
    /// Clients counted by `Summary.visitsRequested`.
    private(set) var visitsRequestedCount = 0
    /// The clients counted by `visitsCount`: who hears a visit (issue 37: a visit was a pass over every client).
    private var visitListeners = Set<ClientID>()
    /// Client states read by the passes that remain (`visitListenersInOrder`), one per client returned. Tests count
    /// it with `summarized`.
    private(set) var listed = 0
    /// Client states summarized since the table was made: one per change of one client. Tests count it to show
    /// that an operation on one client costs the bookkeeping one client, however many there are.
    private(set) var summarized = 0

    let requestLocationBudget: Double
    let reducedAccuracyDemand: Double

    init(requestLocationBudget: Double, reducedAccuracyDemand: Double) {
        self.requestLocationBudget = requestLocationBudget
        self.reducedAccuracyDemand = reducedAccuracyDemand
    }

    var earliestDeadline: Double? { deadlines.min }
    var leastActiveDemand: Double? { demands.min }

    var values: Dictionary<ClientID, LocationEngine.ClientState>.Values { storage.values }
    var keys: Dictionary<ClientID, LocationEngine.ClientState>.Keys { storage.keys }
    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }

    subscript(id: ClientID) -> LocationEngine.ClientState? {
        get { storage[id] }
        set {
            storage[id] = newValue
            resummarize(id)
        }
    }

    /// Runs `body` on a client's state in place (no copy of it); nil for an unknown client.
    mutating func modify<Result>(
        _ id: ClientID, _ body: (inout LocationEngine.ClientState) -> Result
    ) -> Result? {
        guard let index = storage.index(forKey: id) else { return nil }
        let result = body(&storage.values[index])
        resummarize(id)
        return result
    }

    @discardableResult
    mutating func updateValue(
        _ value: LocationEngine.ClientState, forKey id: ClientID
    ) -> LocationEngine.ClientState? {
        let old = storage.updateValue(value, forKey: id)
        resummarize(id)
        return old
    }

    @discardableResult
    mutating func removeValue(forKey id: ClientID) -> LocationEngine.ClientState? {
        let old = storage.removeValue(forKey: id)
        if old != nil { resummarize(id) }
        return old
    }

    private mutating func resummarize(_ id: ClientID) {
        // Read in place: `storage[id]` would copy the client's whole state, twice a fix for every client (0097).
        let new = storage.index(forKey: id).map { summary(storage.values[$0]) }
        summarized += 1
        let old = summaries[id]
        guard old != new else { return }
        summaries[id] = new
        if old?.deadline != new?.deadline {
            if let deadline = old?.deadline { deadlines.remove(deadline) }
            if let deadline = new?.deadline { deadlines.insert(deadline) }
        }
        if old?.activeDemand != new?.activeDemand {
            if let demand = old?.activeDemand { demands.remove(demand) }
            if let demand = new?.activeDemand { demands.insert(demand) }
        }
        pauseProbingCount += (new?.pauseProbing == true ? 1 : 0) - (old?.pauseProbing == true ? 1 : 0)
        significantCount += (new?.significant == true ? 1 : 0) - (old?.significant == true ? 1 : 0)
        visitsCount += (new?.visits == true ? 1 : 0) - (old?.visits == true ? 1 : 0)
        visitsRequestedCount += (new?.visitsRequested == true ? 1 : 0) - (old?.visitsRequested == true ? 1 : 0)
        if new?.visits == true { visitListeners.insert(id) } else { visitListeners.remove(id) }
    }

    /// The clients that hear a visit (authorized, using the visits service), in the engine's client order
    /// (`clientOrder`: by identifier): O(k log k) for k of them, whatever the number of other clients.
    mutating func visitListenersInOrder() -> [ClientID] {
        listed += visitListeners.count
        return visitListeners.sorted { $0.rawValue < $1.rawValue }
    }

    /// The rules `nextDeadline` and `demandedAccuracy` applied in their passes over every client, for one client.
    func summary(_ client: LocationEngine.ClientState) -> Summary {
        var deadline: Double?
        func due(_ time: Double) { deadline = Swift.min(deadline ?? .infinity, time) }
        if let start = client.pending?.startedAt { due(start + requestLocationBudget) }
        if let unknown = client.unknownDeadline { due(unknown) }
        if let deferral = client.deferral, deferral.deadline.isFinite { due(deferral.deadline) }
        if let pause = client.pause { due(pause.probe.deadline) }
        let allowed = client.authorization.allowsLocation
        return Summary(
            deadline: deadline,
            activeDemand: client.isActive ? (client.isReduced ? reducedAccuracyDemand : client.demandedAccuracy) : nil,
            pauseProbing: allowed && client.pause?.probe.isProbing == true,
            significant: allowed && client.significant,
            visits: allowed && client.visits,
            visitsRequested: client.visits)
    }
}
