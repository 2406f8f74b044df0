import CoreLocationEngine
import CoreLocationNetwork
import CoreLocationSources
import Foundation
import Logging

/// The modem's serving cell as a location source: while powered it asks the session for the 3GPP cell
/// (`3GPP_LAC_CI`, GNSS off) and turns each new serving cell into a fix through `CellResolver` (offline table,
/// then online with consent). A cell nobody knows gives `unavailable` saying so; the same cell again gives
/// nothing new.
public final class ModemCellSource: FixOriginReporting {
    public let descriptor: SourceDescriptor
    private let resolver: CellResolver
    private let scheduler: any Scheduler
    private let logger: Logger

    private struct State {
        var serving: [String: CellIdentity] = [:]
        var lastProblem: String?
        /// Each modem's name (`ModemStatus.name`) by path, from the session's list.
        var names: [String: String] = [:]
        var lastOrigin: String?
    }

    private let run: ModemSessionRun<State>

    /// Expected accuracy 2 km (a city cell; rural ones are worse), power 2 (the modem is registered anyway).
    public init(
        id: SourceID = SourceID("modem-cell"), session: ModemManagerSession, resolver: CellResolver,
        scheduler: any Scheduler, logger: Logger = Logger(label: "corelocation.modem")
    ) {
        descriptor = SourceDescriptor(id: id, kind: "modem-cell", expectedAccuracy: 2_000, powerCost: 2, isSimulated: false)
        run = ModemSessionRun(session: session, demand: .cell, extra: State())
        self.resolver = resolver
        self.scheduler = scheduler
        self.logger = logger
    }

    /// Why the last serving cell gave no fix (nil: it did).
    public var lastProblem: String? { run.withExtra { $0.lastProblem } }

    /// The modem of the last fix: its model and D-Bus path (with the serving cell it resolved).
    public var lastFixOrigin: String? { run.withExtra { $0.lastOrigin } }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        run.start(handler, reset: { $0.serving = [:] }) { [weak self] event, generation in
            self?.handle(event, generation)
        }
    }

    public func stop() { run.stop() }

    private func handle(_ event: ModemSessionEvent, _ generation: Int) {
        switch event {
        case .modemsChanged(let modems):
            _ = run.ifCurrent(generation) { state in
                for modem in modems { state.names[modem.path] = modem.name }
            }
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
            let isNew = run.ifCurrent(generation) { state -> Bool in
                guard state.serving[update.modem] != cell else { return false }
                state.serving[update.modem] = cell
                return true
            }
            guard isNew == true else { return }
            Task { await resolve(cell, modem: update.modem, generation) }
        }
    }

    private func resolve(_ cell: CellIdentity, modem: String, _ generation: Int) async {
        do {
            let answer = try await resolver.resolve(cell)
            // A newer serving cell may have arrived meanwhile: only the current one becomes a fix.
            let current = run.ifCurrent(generation) { state -> Bool in
                guard state.serving[modem] == cell else { return false }
                state.lastProblem = nil
                state.lastOrigin = ModemFixOrigin.describe(modem, name: state.names[modem]) + ", cell \(cell)"
                return true
            }
            guard current == true else { return }
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
        run.withExtra { $0.lastProblem = text }
        emit(.unavailable(reason: text), generation)
    }

    private func emit(_ event: SourceEvent, _ generation: Int) { run.emit(event, generation) }
}
