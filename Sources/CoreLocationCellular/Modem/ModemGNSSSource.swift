import CoreLocationDBus
import CoreLocationEngine
import CoreLocationSources
import Foundation
import Logging

/// The modem's GNSS engine as a location source: while powered it asks the session for GNSS (`GPS_NMEA`) and
/// runs the modem's NMEA through the project's NMEA decoder (`NMEAStreamDecoder`: one parser, the same epoch
/// rules as `nmea:` and `serial:`), one decoder per modem.
///
/// ModemManager's `Location[GPS_NMEA]` holds the latest trace of each sentence type, so an update repeats traces
/// that have not changed; a sentence carrying a UTC time that is identical to the one in the modem's previous
/// update is dropped (it belongs to an epoch already handled), sentences without a time (GSA, GSV, VTG) are
/// always fed.
///
/// A modem without `GPS_NMEA` is set up for `GPS_RAW`; each dictionary with a new `utc-time` becomes one fix
/// (`ModemGPSRaw`), a repeated one nothing, a bad one nothing but a count (`rawRejectedCount`) and a log line.
public final class ModemGNSSSource: FixOriginReporting {
    public let descriptor: SourceDescriptor
    private let scheduler: any Scheduler
    private let referenceDate: Date?
    private let logger: Logger

    private struct PerModem {
        var decoder: NMEAStreamDecoder
        var previous: Set<Substring> = []
        /// The `utc-time` of the last GPS_RAW dictionary handled.
        var rawTime: String?
    }

    private struct State {
        var modems: [String: PerModem] = [:]
        var fixes = 0
        var rawRejected = 0
        var lastRawProblem: String?
        /// Each modem's name (`ModemStatus.name`) by path, from the session's list.
        var names: [String: String] = [:]
        var lastOrigin: String?
    }

    private let run: ModemSessionRun<State>

    /// Expected accuracy 5 m (a GNSS fix; the NMEA decoder gives each fix its own), power 30 (the modem's GNSS).
    /// `referenceDate`: the NMEA decoder's GPS week roll-over reference (nil for recorded test logs).
    public init(
        id: SourceID = SourceID("modem-gnss"), session: ModemManagerSession, scheduler: any Scheduler,
        referenceDate: Date? = NMEAEpochAssembler.releaseReferenceDate,
        logger: Logger = Logger(label: "corelocation.modem")
    ) {
        descriptor = SourceDescriptor(id: id, kind: "modem-gnss", expectedAccuracy: 5, powerCost: 30, isSimulated: false)
        run = ModemSessionRun(session: session, demand: .gnss, extra: State())
        self.scheduler = scheduler
        self.referenceDate = referenceDate
        self.logger = logger
    }

    /// Fixes delivered so far.
    public var fixCount: Int { run.withExtra { $0.fixes } }

    /// GPS_RAW dictionaries that gave no fix because they were malformed (not counting repeats).
    public var rawRejectedCount: Int { run.withExtra { $0.rawRejected } }

    /// Why the last rejected GPS_RAW dictionary gave no fix.
    public var lastRawProblem: String? { run.withExtra { $0.lastRawProblem } }

    /// The modem of the last fix: its model and D-Bus path.
    public var lastFixOrigin: String? { run.withExtra { $0.lastOrigin } }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        run.start(handler) { [weak self] event, generation in self?.handle(event, generation) }
    }

    public func stop() { run.stop() }

    private func handle(_ event: ModemSessionEvent, _ generation: Int) {
        switch event {
        case .modemsChanged(let modems):
            _ = run.ifCurrent(generation) { state in
                for modem in modems { state.names[modem.path] = modem.name }
            }
            let usable = modems.contains { modem in
                modem.problem == nil && !(modem.capabilities?.intersection([.gpsNMEA, .gpsRaw]).isEmpty ?? true)
            }
            guard !usable else { return }
            let reason = modems.isEmpty
                ? "no modem (ModemManager has none, or is not running)"
                : modems.map { "\($0.name): \($0.problem ?? "no GNSS (capabilities \($0.capabilities?.description ?? "none"))")" }
                    .joined(separator: "; ")
            emit(.unavailable(reason: reason), generation)
        case .location(let update):
            if let nmea = update.nmea {
                feed(nmea, from: update.modem, generation)
            } else if let raw = update.gpsRaw {
                feed(raw: raw, from: update.modem, generation)
            }
        }
    }

    private func feed(raw: DBusValue, from modem: String, _ generation: Int) {
        let decoded: ModemGPSRaw
        do {
            decoded = try ModemGPSRaw.decode(raw, receivedAt: scheduler.wallNow)
        } catch {
            let counted = run.ifCurrent(generation) { state -> Int in
                state.rawRejected += 1
                state.lastRawProblem = error.description
                return state.rawRejected
            }
            if let counted {
                logger.debug("GPS_RAW rejected", metadata: [
                    "modem": "\(modem)", "reason": "\(error.description)", "rejected": "\(counted)",
                ])
            }
            return
        }
        let isNew = run.ifCurrent(generation) { state -> Bool in
            var entry = state.modems[modem] ?? PerModem(decoder: NMEAStreamDecoder(referenceDate: referenceDate))
            guard entry.rawTime != decoded.utcTime else { return false }
            entry.rawTime = decoded.utcTime
            state.modems[modem] = entry
            state.fixes += 1
            state.lastOrigin = ModemFixOrigin.describe(modem, name: state.names[modem])
            return true
        }
        guard isNew == true else { return }
        logger.debug("GPS_RAW fix", metadata: ["modem": "\(modem)", "utc-time": "\(decoded.utcTime)"])
        emit(.fix(decoded.fix), generation)
    }

    private func feed(_ text: String, from modem: String, _ generation: Int) {
        let now = scheduler.wallNow
        var events: [SourceEvent] = []
        _ = run.ifCurrent(generation) { state in
            var entry = state.modems[modem] ?? PerModem(decoder: NMEAStreamDecoder(referenceDate: referenceDate))
            let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            var bytes: [UInt8] = []
            var timed: Set<Substring> = []
            for line in lines {
                if Self.carriesTime(line) {
                    timed.insert(line)
                    if entry.previous.contains(line) { continue }
                }
                bytes.append(contentsOf: line.utf8)
                bytes.append(contentsOf: [13, 10])
            }
            entry.previous = timed
            entry.decoder.feed(bytes, receivedAt: now) { event, _ in
                if case .fix(let fix) = event { events.append(.fix(fix)) }
            }
            state.modems[modem] = entry
            state.fixes += events.count
            if !events.isEmpty { state.lastOrigin = ModemFixOrigin.describe(modem, name: state.names[modem]) }
        }
        if !events.isEmpty { logger.debug("NMEA fixes", metadata: ["modem": "\(modem)", "count": "\(events.count)"]) }
        for event in events { emit(event, generation) }
    }

    /// GGA, RMC, GLL, GNS, GST, ZDA: sentences that say which epoch they belong to.
    static func carriesTime(_ line: Substring) -> Bool {
        guard line.count > 6 else { return false }
        let type = line.dropFirst(3).prefix(3)
        return ["GGA", "RMC", "GLL", "GNS", "GST", "ZDA"].contains(type)
    }

    private func emit(_ event: SourceEvent, _ generation: Int) { run.emit(event, generation) }
}
