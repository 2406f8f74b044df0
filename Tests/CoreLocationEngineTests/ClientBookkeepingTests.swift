import CoreLocationEngine
import Testing

/// The engine's client bookkeeping (issue 37, item 2): the order every action follows is kept by a binary
/// search, and a closed connection's clients go in one step.
struct ClientBookkeepingTests {
    func register(_ engine: inout LocationEngine, _ ids: [UInt64]) {
        for id in ids {
            _ = engine.handle(.client(ClientID(id), .register(label: "c\(id)", authorization: whenInUse)), at: 0)
        }
    }

    @Test func clientsAreKeptInIdentifierOrderWhateverOrderTheyCome() {
        var engine = LocationEngine(sources: [gnss])
        register(&engine, [5, 3, 9, 1, 7, 3, 5])
        #expect(engine.status(at: 0).clients.map(\.id.rawValue) == [1, 3, 5, 7, 9])
        _ = engine.handle(.client(ClientID(5), .unregister), at: 0)
        _ = engine.handle(.client(ClientID(5), .unregister), at: 0)
        #expect(engine.status(at: 0).clients.map(\.id.rawValue) == [1, 3, 7, 9])
    }

    @Test func unregisterAllRemovesEveryNamedClientInOneStep() {
        var engine = LocationEngine(sources: [gnss])
        register(&engine, Array(1...10))
        for id in 1...10 {
            _ = engine.handle(.client(ClientID(UInt64(id)), .startUpdates(UpdateRequest())), at: 0)
        }
        #expect(engine.status(at: 0).sources.first?.isPowered == true)
        // Unknown identifiers (here 42) are ignored.
        _ = engine.handle(.unregisterAll([2, 4, 6, 8, 10, 42].map(ClientID.init)), at: 1)
        #expect(engine.status(at: 1).clients.map(\.id.rawValue) == [1, 3, 5, 7, 9])
        let actions = engine.handle(.source(gnss.id, .fix(fix(48.8584, 2.2945, at: 2))), at: 2)
        let served = actions.compactMap { action -> UInt64? in
            if case let .deliver(id, _) = action { return id.rawValue }
            return nil
        }
        #expect(served == [1, 3, 5, 7, 9])
        // The last clients going power the source down in that same step.
        let last = engine.handle(.unregisterAll([1, 3, 5, 7, 9].map(ClientID.init)), at: 3)
        #expect(last.contains(.powerOff(gnss.id)))
        #expect(engine.status(at: 3).clients.isEmpty)
    }

    /// 2 000 clients in, newest identifier first (each one goes to the front), then out in one step.
    @Test func manyClientsComeAndGo() {
        var engine = LocationEngine(sources: [gnss])
        let ids = (1...2_000).map { UInt64($0) }
        register(&engine, ids.reversed())
        #expect(engine.status(at: 0).clients.map(\.id.rawValue) == ids)
        _ = engine.handle(.unregisterAll(ids.map(ClientID.init)), at: 0)
        #expect(engine.status(at: 0).clients.isEmpty)
    }
}
