import ArgumentParser
import CoreLocation
import CoreLocationRuntime
import Foundation
import CoreLocationEngine
import Synchronization

extension LocationCtl {
    struct Monitor: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "monitor",
            abstract: "Print region, significant-change and visit events as they happen.",
            discussion: """
                Monitors circular regions as startMonitoring(for:) does (entry and exit need enough evidence \
                past a hysteresis band, 30 s of clear fixes; see docs/decisions/0019-region-crossings-on-noisy-tracks.md) and, with \
                --significant, prints the significant-change service's updates; with --visits, the visits \
                service's arrivals and completed visits (5 min within 30 m, of a 100 m cluster; see \
                docs/decisions/0008-visits-and-automatic-pausing.md). \
                Runs until the simulated \
                route ends or you press Ctrl-C. The regions last for this run only (they are not added to \
                locationctl's stored regions). A replay (--simulate route, nmea: file) runs the rules on the \
                recording's timeline with the receiver on throughout: --speed only decides how fast that \
                timeline passes, so visits, region and significant-change events come out the same at any \
                speed (max too), stamped with the recording's times (docs/decisions/0020-replay-timeline.md).

                Examples:
                  locationctl monitor --simulate drive --speed max --region 45.2735,13.7142,300,start
                  locationctl monitor --simulate bike --speed 20 --region 45.76,4.83,200 --significant --format json
                  locationctl monitor --simulate track.gpx --speed max --visits --format json
                """
        )

        @OptionGroup var source: SourceOptions

        @Option(
            name: .customLong("region"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp(
                "A circle to monitor: latitude, longitude, radius in metres, optional identifier.",
                valueName: "lat,lon,radius[,id]")
        )
        var regions: [RegionArgument] = []

        @Flag(help: "Also print the significant-change service's updates.")
        var significant = false

        @Flag(help: "Also print visits: arrivals, and completed visits with both dates.")
        var visits = false

        @Option(help: "Output format: text, or json (one object per line).")
        var format: EventFormat = .text

        func validate() throws {
            if regions.isEmpty && !significant && !visits {
                throw ValidationError("Nothing to monitor: give at least one --region, --significant or --visits.")
            }
            for region in regions {
                guard region.latitude.isFinite, (-90...90).contains(region.latitude),
                    region.longitude.isFinite, (-180...180).contains(region.longitude)
                else {
                    throw ValidationError(
                        "--region \(region.text): the centre must be a latitude in -90…90 "
                            + "and a longitude in -180…180.")
                }
                guard region.radius.isFinite, region.radius > 0 else {
                    throw ValidationError("--region \(region.text): the radius must be a positive number of metres.")
                }
                guard !region.identifier.trimmingCharacters(in: .whitespaces).isEmpty else {
                    throw ValidationError("--region \(region.text): the identifier is empty.")
                }
            }
            let names = regions.map(\.identifier)
            if Set(names).count != names.count {
                throw ValidationError("Two --region options have the same identifier.")
            }
        }

        @MainActor
        mutating func run() async throws {
            // Without a source named, locationd's engine when it answers, as `track` (decision 0067): the same
            // client of the one interface either way, so a decision stored with the daemon applies here too.
            let installed = try source.installRuntime(monitoring: true, throughDaemon: true)
            let runtime = installed.runtime
            let bridge = MonitorBridge()
            runtime.observeSources { _, event in
                if event == .finished { bridge.sourceFinished(after: runtime.flow) }
            }
            // One client of the runtime: its region notices and visits carry the fix that decided them, so each
            // printed event has its exact time and coordinate (the delegate's callbacks have neither). The regions
            // are this run's group: never stored among locationctl's regions, in process or by locationd.
            let group = "locationctl:\(ProcessInfo.processInfo.processIdentifier)"
            let client = runtime.addClient(label: "locationctl monitor") { event in bridge.handle(event, group: group) }
            let regions = regions.map {
                MonitoredRegion(
                    identifier: $0.identifier, latitude: $0.latitude, longitude: $0.longitude, radius: $0.radius,
                    group: group)
            }
            var started = false
            var authorization = RuntimeAuthorization(runtime.authorization)
            let writer = EventWriter(format: format)
            bridge.authorizationChanged(runtime.authorization.authorization)
            loop: for await event in bridge.events {
                switch event {
                case .authorization(let level):
                    if try authorization.isAuthorized(level), !started {
                        started = true
                        for region in regions { runtime.send(.startMonitoring(region), from: client) }
                        if significant { runtime.send(.startSignificantChanges, from: client) }
                        if visits { runtime.send(.startVisits, from: client) }
                    }
                case .notice(let notice):
                    writer.write(notice)
                case .significant(let fix):
                    writer.writeSignificant(fix)
                case .visit(let visit):
                    writer.writeVisit(visit)
                case .failed(let identifier, let error):
                    let code = error.code.rawValue
                    printError("monitoring \(identifier) failed: kCLError \(code): \(error.localizedDescription)")
                case .sourceFinished:
                    break loop
                }
            }
            for region in regions { runtime.send(.stopMonitoring(identifier: region.identifier, group: group), from: client) }
            runtime.send(.unregister, from: client)
            try installed.failIfNoNMEA()
        }
    }
}

/// `--region LAT,LON,RADIUS[,ID]`.
struct RegionArgument: ExpressibleByArgument {
    var latitude: Double
    var longitude: Double
    var radius: Double
    var identifier: String
    /// The argument as given, for messages.
    var text: String

    private static let counter = Counter()

    init?(argument: String) {
        let parts = argument.split(separator: ",", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count >= 3, let lat = Double(parts[0].trimmingCharacters(in: .whitespaces)),
            let lon = Double(parts[1].trimmingCharacters(in: .whitespaces)),
            let radius = Double(parts[2].trimmingCharacters(in: .whitespaces))
        else { return nil }
        text = argument
        latitude = lat
        longitude = lon
        self.radius = radius
        identifier = parts.count == 4 ? String(parts[3]) : "region-\(Self.counter.next())"
    }

    /// Numbers the regions given without an identifier (region-1, region-2, …).
    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func next() -> Int { value.add(1, ordering: .relaxed).newValue }
    }
}

enum EventFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
