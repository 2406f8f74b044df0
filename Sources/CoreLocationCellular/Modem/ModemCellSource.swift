import CoreLocationEngine
import CoreLocationNetwork
import CoreLocationSources
import Foundation
import Logging
import Synchronization

/// The modem's serving cell as a location source: while powered it asks the session for the 3GPP cell
/// (`3GPP_LAC_CI`, GNSS off) and turns each new serving cell into a fix through `CellResolver` (offline table,
/// then online with consent). A cell nobody knows gives `unavailable` saying so; the same cell again gives
/// nothing new.
public final class ModemCellSource: LocationSource {
    public let descriptor: SourceDescriptor
    private let session: ModemManagerSession
    private let resolver: CellResolver
    private let scheduler: any Scheduler
    private let logger: Logger

    private struct State {
        var handler: (@Sendable (SourceEvent) -> Void)?
        var token: Int?
        var generation = 0
        var serving: [String: CellIdentity] = [:]
        var lastProblem: String?
    }

    private let state = Mutex(State())

    /// Expected accuracy 2 km (a city cell; rural ones are worse), power 2 (the modem is registered anyway).
    public init(
        id: SourceID = SourceID("modem-cell"), session: ModemManagerSession, resolver: CellResolver,
        scheduler: any Scheduler, logger: Logger = Logger(label: "corelocation.modem")
    ) {
        descriptor = SourceDescriptor(id: id, kind: "modem-cell", expectedAccuracy: 2_000, powerCost: 2, isSimulated: false)
        self.session = session
        self.resolver = resolver
        self.scheduler = scheduler
        self.logger = logger
    }

    /// Why the last serving cell gave no fix (nil: it did).
    public var lastProblem: String? { state.withLock { $0.lastProblem } }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        let generation = state.withLock { state in
            state.handler = handler
            state.generation += 1
            state.serving = [:]
            return state.generation
        }
        Task {
            let token = await session.addListener { [weak self] event in self?.handle(event, generation) }
            let stale = state.withLock { state -> Bool in
                guard state.generation == generation else { return true }
                state.token = token
                return false
            }
            if stale { return await session.removeListener(token) }
            await session.changeDemand(.cell, by: 1)
        }
    }

    public func stop() {
        let token = state.withLock { state -> Int?? in
            guard state.handler != nil else { return nil }
            state.handler = nil
            state.generation += 1
            defer { state.token = nil }
            return .some(state.token)
        }
        guard let token else { return }
        Task {
            if let token { await session.removeListener(token) }
            await session.changeDemand(.cell, by: -1)
        }
    }

    private func handle(_ event: ModemSessionEvent, _ generation: Int) {
        switch event {
        case .modemsChanged(let modems):
            let usable = modems.contains { $0.problem == nil && ($0.capabilities?.contains(.threeGPPCell) ?? false) }
            guard !usable else { return }
            let reason = modems.isEmpty
                ? "no modem (ModemManager has none, or is not running)"
                : modems.map { "\($0.name): \($0.problem ?? "no cell location")" }.joined(separator: "; ")
            emit(.unavailable(reason: reason), generation)
        case .location(let update):
            guard let text = update.cell else { return }
            let cell: CellIdentity
            do {
                cell = try CellIdentity(
                    modemManager: text, radio: CellRadioFromAccessTechnology.radio(update.accessTechnologies))
            } catch {
                problem("\(error)", generation)
                return
            }
            let isNew = state.withLock { state -> Bool in
                guard state.generation == generation, state.serving[update.modem] != cell else { return false }
                state.serving[update.modem] = cell
                return true
            }
            guard isNew else { return }
            Task { await resolve(cell, modem: update.modem, generation) }
        }
    }

    private func resolve(_ cell: CellIdentity, modem: String, _ generation: Int) async {
        do {
            let answer = try await resolver.resolve(cell)
            // A newer serving cell may have arrived meanwhile: only the current one becomes a fix.
            let current = state.withLock { $0.serving[modem] == cell && $0.generation == generation }
            guard current else { return }
            state.withLock { $0.lastProblem = nil }
            logger.debug("cell fix", metadata: ["modem": "\(modem)", "cell": "\(cell)", "origin": "\(answer.origin)"])
            emit(
                .fix(
                    Fix(
                        latitude: answer.latitude, longitude: answer.longitude,
                        horizontalAccuracy: answer.horizontalAccuracy, timestamp: scheduler.wallNow)),
                generation)
        } catch {
            problem("\(error)", generation)
        }
    }

    private func problem(_ text: String, _ generation: Int) {
        state.withLock { $0.lastProblem = text }
        emit(.unavailable(reason: text), generation)
    }

    private func emit(_ event: SourceEvent, _ generation: Int) {
        let handler = state.withLock { $0.generation == generation ? $0.handler : nil }
        handler?(event)
    }
}
