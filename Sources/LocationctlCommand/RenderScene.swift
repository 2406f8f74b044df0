import Foundation
import CoreLocationEngine
import CoreLocationSources

/// What `locationctl render` draws, in plain values: the layers of fixes, the regions with the
/// crossings the engine reported, and the visits it detected.
struct RenderScene: Sendable {
    /// A set of points drawn with one style.
    struct TrackLayer: Sendable {
        enum Kind: String, Sendable {
            /// Fixes as the source produced them: dots with their accuracy circles, joined by a line.
            case raw
            /// Hook for the reporter (position sharing): the points it uploaded, drawn over the raw
            /// fixes so the two can be compared. Nothing produces this layer yet.
            case uploaded
        }
        var kind: Kind
        var name: String
        var fixes: [Fix]
    }

    struct Crossing: Sendable {
        var region: String
        var entered: Bool
        var fix: Fix
    }

    var title: String
    var layers: [TrackLayer]
    var regions: [MonitoredRegion]
    var crossings: [Crossing] = []
    var visits: [Visit] = []

    var allFixes: [Fix] { layers.flatMap(\.fixes) }
}

extension RenderScene {
    /// Fixes of a `--simulate` scenario, at recorded pace (a fixed place gives one fix). Times start
    /// at the route's recorded start, else at 2000-01-01T00:00:00Z.
    static func fixes(of scenario: SimulationScenario) -> [Fix] {
        let fallbackStart = Date(timeIntervalSince1970: 946_684_800)
        switch scenario {
        case .fixed(let latitude, let longitude):
            return [
                Fix(
                    latitude: latitude, longitude: longitude, horizontalAccuracy: RoutePlayer.horizontalAccuracy,
                    timestamp: fallbackStart, isSimulated: true
                )
            ]
        case .gpxFile(let file):
            // A picture holds every point anyway; parse() never gives this case to render.
            guard let route = try? GPXParser().route(contentsOfFile: file.path) else { return [] }
            return fixes(of: .route(route))
        case .route(let route):
            let start = route.recordedStart ?? fallbackStart
            return zip(route.points, route.offsets).map { point, offset in
                Fix(
                    latitude: point.latitude, longitude: point.longitude, altitude: point.elevation ?? 0,
                    horizontalAccuracy: RoutePlayer.horizontalAccuracy,
                    verticalAccuracy: point.elevation == nil ? -1 : RoutePlayer.verticalAccuracy,
                    course: point.course ?? -1, speed: point.speed ?? -1,
                    timestamp: start.addingTimeInterval(offset), isSimulated: true
                )
            }
        }
    }

    /// Fixes decoded from a recorded NMEA log, with the accuracy the NMEA model gives them.
    static func fixes(ofNMEA bytes: [UInt8]) -> [Fix] {
        var decoder = NMEAStreamDecoder(referenceDate: nil, marksFixesSimulated: true)
        var fixes: [Fix] = []
        let received = Date(timeIntervalSince1970: 946_684_800)
        let collect: (NMEAEpochEvent, Double?) -> Void = { event, _ in
            if case .fix(let fix) = event { fixes.append(fix) }
        }
        decoder.feed(bytes, receivedAt: received, collect)
        decoder.finish(receivedAt: received, collect)
        return fixes
    }

    /// Replays the fixes through a location engine that monitors the regions (and visits) the way
    /// an app's `CLLocationManager` would, and keeps the crossings and visits it reports.
    ///
    /// The engine's clock follows the fixes' timestamps, so the 20 s dwell and the visit rules
    /// see the recording's own time. Quiet monitoring is off: every fix is looked at.
    mutating func replayThroughEngine(visits detectVisits: Bool) {
        let fixes = layers.first { $0.kind == .raw }?.fixes ?? []
        guard let first = fixes.first, !regions.isEmpty || detectVisits else { return }
        let source = SourceDescriptor(
            id: SourceID("render"), kind: "replay", expectedAccuracy: 5, powerCost: 100, isSimulated: true
        )
        var configuration = LocationEngine.Configuration()
        configuration.monitoringProbeInterval = 0
        var driver = EngineDriver(engine: LocationEngine(sources: [source], configuration: configuration))
        let client = ClientID(1)
        driver.send(.client(client, .register(label: "render", authorization: ClientAuthorization(level: .always))))
        for region in regions { driver.send(.client(client, .startMonitoring(region))) }
        if detectVisits { driver.send(.client(client, .startVisits)) }
        let start = first.timestamp
        let timed = fixes.map { (time: max(0, $0.timestamp.timeIntervalSince(start)), fix: $0) }
        let end = (timed.last?.time ?? 0) + 3_600
        driver.replay(timed, through: source.id, warmUp: 0, until: end)
        driver.send(.source(source.id, .finished))
        for (_, action) in driver.actions {
            switch action {
            case .region(_, .entered(let region, let fix)):
                crossings.append(Crossing(region: region.identifier, entered: true, fix: fix))
            case .region(_, .exited(let region, let fix)):
                crossings.append(Crossing(region: region.identifier, entered: false, fix: fix))
            case .visit(_, let visit):
                visits.append(visit)
            default:
                break
            }
        }
    }
}
