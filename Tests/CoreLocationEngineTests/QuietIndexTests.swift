import Testing

@testable import CoreLocationEngine

/// What quiet monitoring and the visits service ask about all clients — is any monitoring service on
/// (`isMonitoring`, after every fix and every tick), does anyone still use the visit detector (at each unregister),
/// who hears a visit — is kept by `ClientTable` as each client changes instead of a pass over every client
/// (issue 37). Counted, not timed; and the kept answers equal the passes they replace on seeded random runs.
struct QuietIndexTests {
    /// The passes the engine made before, as the reference.
    static func scannedMonitoring(_ engine: LocationEngine) -> Bool {
        (engine.regionsAuthorized && engine.regions.count > 0)
            || engine.clients.values.contains { ($0.significant || $0.visits) && $0.authorization.allowsLocation }
    }

    static func scannedVisitUsers(_ engine: LocationEngine) -> Bool {
        engine.clients.values.contains(where: \.visits)
    }

    static func scannedListeners(_ engine: LocationEngine) -> [ClientID] {
        engine.clientOrder.filter { id in
            guard let client = engine.clients[id] else { return false }
            return client.visits && client.authorization.allowsLocation
        }
    }

    /// 4 000 random inputs over 40 clients (registrations, authorizations, the monitoring services, connections
    /// closing, fixes of a still device with jumps, ticks): after each, the kept answers are the passes' answers.
    @Test(arguments: [UInt64(3), 37, 4096])
    func theKeptAnswersAreThePasses(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var engine = LocationEngine(sources: [gnss, coarse])
        var now = 0.0
        let authorizations = [
            whenInUse, reducedWhenInUse, ClientAuthorization(level: .always), ClientAuthorization(level: .denied),
            ClientAuthorization(level: .notDetermined),
        ]
        func pick<Element>(_ elements: [Element]) -> Element {
            elements[Int.random(in: 0..<elements.count, using: &random)]
        }
        var answered = (monitoring: 0, detector: 0, listeners: 0)
        for step in 0..<4_000 {
            now += Double.random(in: 0...30, using: &random)
            let id = ClientID(UInt64.random(in: 1...40, using: &random))
            let input: EngineInput
            switch Int.random(in: 0..<14, using: &random) {
            case 0, 1: input = .client(id, .register(label: "c", authorization: pick(authorizations)))
            case 2, 3: input = .client(id, .setAuthorization(pick(authorizations)))
            case 4: input = .client(id, Bool.random(using: &random) ? .startSignificantChanges : .stopSignificantChanges)
            case 5, 6: input = .client(id, Bool.random(using: &random) ? .startVisits : .stopVisits)
            case 7: input = .client(id, .unregister)
            case 8: input = .unregisterAll((1...3).map { _ in ClientID(UInt64.random(in: 1...40, using: &random)) })
            case 9: input = .tick
            default:
                let far = Double.random(in: 0..<1, using: &random) < 0.05
                input = .source(gnss.id, .fix(fix(far ? 48.9 : 48.8584, 2.2945, at: now)))
            }
            // The release runs at a `stopVisits` or an unregister of a client the engine has.
            let releases: Bool
            switch input {
            case let .client(id, .unregister), let .client(id, .stopVisits): releases = engine.clients[id] != nil
            case let .unregisterAll(ids): releases = ids.contains { engine.clients[$0] != nil }
            default: releases = false
            }
            _ = engine.handle(input, at: now)
            var copy = engine.clients
            // The detector's release reads whether anyone uses visits (authorized or not) at an unregister or a
            // `stopVisits` (a client registered again keeps it, as before): the kept count against the pass.
            let kept = (monitoring: engine.isMonitoring, detector: engine.clients.visitsRequestedCount > 0,
                        listeners: copy.visitListenersInOrder())
            let scanned = (monitoring: Self.scannedMonitoring(engine), detector: Self.scannedVisitUsers(engine),
                           listeners: Self.scannedListeners(engine))
            #expect(kept.monitoring == scanned.monitoring, "seed \(seed), step \(step): \(input)")
            #expect(kept.detector == scanned.detector, "seed \(seed), step \(step): \(input)")
            #expect(kept.listeners == scanned.listeners, "seed \(seed), step \(step): \(input)")
            // Where the release ran, the detector is there exactly while someone uses visits.
            if releases {
                #expect((engine.visitDetector != nil) == scanned.detector, "seed \(seed), step \(step): \(input)")
            }
            if kept.monitoring != scanned.monitoring || kept.detector != scanned.detector
                || kept.listeners != scanned.listeners { return }
            if kept.monitoring { answered.monitoring += 1 }
            if kept.detector { answered.detector += 1 }
            if !kept.listeners.isEmpty { answered.listeners += 1 }
        }
        // The run reached both answers of each question (so the comparison was not of two constant answers).
        #expect(answered.monitoring > 100 && answered.monitoring < 3_900, "\(answered)")
        #expect(answered.detector > 100 && answered.detector < 3_900, "\(answered)")
        #expect(answered.listeners > 100 && answered.listeners < 3_900, "\(answered)")
    }

    /// Client states read to serve the visits service through a stay and a departure (about 1 400 fixes and
    /// ticks, two visits) among `count` registered clients of which two monitor visits, and what they heard.
    static func visitWork(among count: Int) -> (listed: Int, visits: Int, disconnectsSummarized: Int) {
        var engine = LocationEngine(sources: [gnss])
        for id in 1...count {
            _ = engine.handle(.client(ClientID(UInt64(id)), .register(label: "c", authorization: whenInUse)), at: 0)
        }
        for id in [2, count - 1] { _ = engine.handle(.client(ClientID(UInt64(id)), .startVisits), at: 0) }
        var walk = Walk(latitude: 45.76, longitude: 4.83)
        walk.walk(metres: 300)
        walk.stay(900)
        walk.walk(metres: 600)
        var visits = 0
        for fix in walk.fixes {
            let at = seconds(fix.timestamp) ?? 0
            for action in engine.handle(.source(gnss.id, .fix(fix)), at: at) + engine.handle(.tick, at: at) {
                if case .visit = action { visits += 1 }
            }
        }
        // Then every client but the two goes, one unregister each (as clients do that stop one by one).
        let before = engine.clients.summarized
        for id in 1...count where id != 2 && id != count - 1 {
            _ = engine.handle(.client(ClientID(UInt64(id)), .unregister), at: 2_000)
        }
        let summarized = engine.clients.summarized - before
        #expect(engine.visitDetector != nil)
        // The last of the two goes with its connection: nobody uses the detector any more.
        _ = engine.handle(.unregisterAll([ClientID(2), ClientID(UInt64(count - 1))]), at: 2_001)
        #expect(engine.visitDetector == nil)
        return (engine.clients.listed, visits, summarized)
    }

    /// Among 1 000 clients the visits service reads the same two clients per visit as among 10 (the passes read
    /// every client after every fix and tick — 2 800 000 reads there — and one pass per unregister, 500 000).
    @Test func theVisitsServiceReadsOnlyItsClientsWhateverTheOthers() {
        let few = Self.visitWork(among: 10)
        let many = Self.visitWork(among: 1_000)
        // Two visits (arrival, then the completed visit), each heard by the two clients.
        #expect(few.visits == 4 && many.visits == 4, "10: \(few), 1 000: \(many)")
        #expect(few.listed == 4 && many.listed == 4, "10: \(few), 1 000: \(many)")
        // One summary per unregister, however many clients remain.
        #expect(few.disconnectsSummarized == 8 && many.disconnectsSummarized == 998, "10: \(few), 1 000: \(many)")
    }
}
