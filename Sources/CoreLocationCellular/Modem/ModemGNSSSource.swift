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
public final class ModemGNSSSource: LocationSource {
    public let descriptor: SourceDescriptor
    private let scheduler: any Scheduler
    private let referenceDate: Date?
    private let logger: Logger

    private struct PerModem {
        var decoder: NMEAStreamDecoder
        var previous: Set<Substring> = []
    }

    private struct State {
        var modems: [String: PerModem] = [:]
        var fixes = 0
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

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        run.start(handler) { [weak self] event, generation in self?.handle(event, generation) }
    }

    public func stop() { run.stop() }

    private func handle(_ event: ModemSessionEvent, _ generation: Int) {
        switch event {
        case .modemsChanged(let modems):
            let usable = modems.contains { $0.problem == nil && ($0.capabilities?.contains(.gpsNMEA) ?? false) }
            guard !usable else { return }
            let reason = modems.isEmpty
                ? "no modem (ModemManager has none, or is not running)"
                : modems.map { "\($0.name): \($0.problem ?? "no GNSS (capabilities \($0.capabilities?.description ?? "none"))")" }
                    .joined(separator: "; ")
            emit(.unavailable(reason: reason), generation)
        case .location(let update):
            guard let nmea = update.nmea else { return }
            feed(nmea, from: update.modem, generation)
        }
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
        }
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
