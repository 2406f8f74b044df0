import Testing

@testable import CoreLocationEngine

/// The engine's questions about all its clients — when to wake it (`nextDeadline`) and what accuracy to power
/// sources for (`demandedAccuracy`) — are kept as each client changes (`ClientTable`, issue 37 item 2, decision
/// 0093) instead of a pass over every client after every input. Counted, not timed: an operation on one client
/// summarizes a bounded number of clients whatever their number; and the kept answers equal the passes they replace
/// on a seeded random run.
struct ClientIndexTests {
    /// The passes over every client that `nextDeadline` and `demandedAccuracy` made before, as the reference.
    static func scannedDeadline(_ engine: LocationEngine) -> Double? {
        var deadline: Double?
        for client in engine.clients.values {
            if let start = client.pending?.startedAt {
                deadline = min(deadline ?? .infinity, start + engine.configuration.requestLocationBudget)
            }
            if let unknown = client.unknownDeadline { deadline = min(deadline ?? .infinity, unknown) }
            if let deferral = client.deferral, deferral.deadline.isFinite {
                deadline = min(deadline ?? .infinity, deferral.deadline)
            }
            if let pause = client.pause { deadline = min(deadline ?? .infinity, pause.probe.deadline) }
        }
        if let probe = engine.monitoringProbe { deadline = min(deadline ?? .infinity, probe.deadline) }
        for request in engine.regions.stateRequests.values { deadline = min(deadline ?? .infinity, request.deadline) }
        return deadline
    }

    static func scannedDemand(_ engine: LocationEngine) -> Double? {
        let configuration = engine.configuration
        var demand: Double?
        func need(_ metres: Double) { demand = min(demand ?? .infinity, metres) }
        let monitoringLooks = engine.monitoringProbe?.isProbing ?? true
        for client in engine.clients.values {
            if client.isActive {
                need(client.isReduced ? configuration.reducedAccuracyDemand : client.demandedAccuracy)
            }
            guard client.authorization.allowsLocation else { continue }
            if client.pause?.probe.isProbing == true { need(configuration.pauseProbeAccuracy) }
            if monitoringLooks && client.significant { need(configuration.significantAccuracyDemand) }
            if monitoringLooks && client.visits { need(configuration.visitAccuracyDemand) }
        }
        if monitoringLooks && engine.regionsAuthorized && engine.regions.count > 0 {
            need(configuration.regionAccuracyDemand)
        }
        return demand
    }

    /// 4 000 random inputs over 40 clients (every command that changes a deadline or a demand, fixes, ticks,
    /// connections closing): after each, the kept answers are the passes' answers. Seeded, so a failure replays.
    @Test(arguments: [UInt64(1), 37, 2026])
    func theKeptAnswersAreThePasses(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var engine = LocationEngine(sources: [gnss, coarse])
        var now = 0.0
        let authorizations = [
            whenInUse, reducedWhenInUse, ClientAuthorization(level: .always), ClientAuthorization(level: .denied),
            ClientAuthorization(level: .notDetermined),
        ]
        let accuracies: [Double] = [-1, 5, 10, 100, 3000, .nan, -2]
        func pick<Element>(_ elements: [Element]) -> Element {
            elements[Int.random(in: 0..<elements.count, using: &random)]
        }
        for step in 0..<4_000 {
            now += Double.random(in: 0...20, using: &random)
            let id = ClientID(UInt64.random(in: 1...40, using: &random))
            let input: EngineInput
            switch Int.random(in: 0..<16, using: &random) {
            case 0, 1: input = .client(id, .register(label: "c", authorization: pick(authorizations)))
            case 2: input = .client(id, .setAuthorization(pick(authorizations)))
            case 3, 4:
                input = .client(id, .startUpdates(UpdateRequest(
                    desiredAccuracy: pick(accuracies),
                    pausesAutomatically: Bool.random(using: &random))))
            case 5: input = .client(id, .stopUpdates)
            case 6: input = .client(id, .requestLocation(UpdateRequest(desiredAccuracy: pick(accuracies))))
            case 7: input = .client(id, Bool.random(using: &random) ? .startSignificantChanges : .stopSignificantChanges)
            case 8: input = .client(id, Bool.random(using: &random) ? .startVisits : .stopVisits)
            case 9: input = .client(id, .allowDeferredUpdates(distance: 500, timeout: Double.random(in: 1...600, using: &random)))
            case 10: input = .client(id, .unregister)
            case 11: input = .unregisterAll((1...3).map { _ in ClientID(UInt64.random(in: 1...40, using: &random)) })
            case 12: input = .tick
            default:
                // A still device (so pauses and quiet monitoring start) with now and then a jump.
                let far = Double.random(in: 0..<1, using: &random) < 0.1
                input = .source(gnss.id, .fix(fix(far ? 48.9 : 48.8584, 2.2945, at: now)))
            }
            _ = engine.handle(input, at: now)
            let deadline = (kept: engine.nextDeadline, scanned: Self.scannedDeadline(engine))
            let demand = (kept: engine.demandedAccuracy, scanned: Self.scannedDemand(engine))
            #expect(deadline.kept == deadline.scanned, "seed \(seed), step \(step): \(input)")
            #expect(demand.kept == demand.scanned, "seed \(seed), step \(step): \(input)")
            // One failure is enough to replay; the steps after it would only repeat it.
            if deadline.kept != deadline.scanned || demand.kept != demand.scanned { return }
        }
    }

    /// How many client states the bookkeeping summarizes for one client's commands among `count` clients that
    /// all run updates.
    static func summarizedForOneClient(among count: Int) -> Int {
        var engine = LocationEngine(sources: [gnss])
        for id in 1...count {
            _ = engine.handle(.client(ClientID(UInt64(id)), .register(label: "c", authorization: whenInUse)), at: 0)
            _ = engine.handle(.client(ClientID(UInt64(id)), .startUpdates(UpdateRequest(desiredAccuracy: 100))), at: 0)
        }
        let before = engine.clients.summarized
        let one = ClientID(UInt64(count / 2))
        _ = engine.handle(.client(one, .requestLocation(UpdateRequest(desiredAccuracy: 5))), at: 1)
        _ = engine.handle(.client(one, .stopUpdates), at: 2)
        _ = engine.handle(.client(one, .startUpdates(UpdateRequest(desiredAccuracy: 10))), at: 3)
        _ = engine.handle(.client(ClientID(UInt64(count + 1)), .register(label: "new", authorization: whenInUse)), at: 4)
        _ = engine.handle(.client(ClientID(UInt64(count + 1)), .unregister), at: 5)
        // What the shell asks after every input.
        _ = engine.nextDeadline
        return engine.clients.summarized - before
    }

    /// The same five commands of one client cost the bookkeeping the same among 10 clients as among 1 000 (a pass
    /// over every client after each input, twice, as before, visited 10 000 there).
    @Test func oneClientsCommandsCostTheSameWhateverTheClients() {
        let few = Self.summarizedForOneClient(among: 10)
        let many = Self.summarizedForOneClient(among: 1_000)
        #expect(few == many, "10 clients: \(few), 1 000 clients: \(many)")
        #expect(many <= 12, "\(many)")
    }
}
