import CoreLocation
import CoreLocationRuntime
import CoreLocationEngine
import CoreLocationReporting
import Dispatch
import Foundation

extension LocationCtl.Report {
    /// The region around the newest report whose exit has locationd start a killed reporter again.
    static let lastReportRegion = "locationctl.report.last"

    /// `--source` as `track` takes it.
    func liveSourceOptions() throws -> SourceOptions {
        try SourceOptions.parse(sources.flatMap { ["--source", $0] })
    }

    /// The live position, until SIGINT or SIGTERM (decision 0045). Standard updates feed the policy; to be
    /// started again after a kill it monitors significant changes and a region around its newest report
    /// (where it was last said to be): when the user moves on, one of the two wakes locationd, which starts
    /// the same command, and the durable queue resumes where the killed process left it.
    @MainActor
    func runLive() async throws {
        var session = try ManagerSession(
            source: try liveSourceOptions(), accuracy: .best, identity: AppIdentity.locationctlReporter)
        let (bridge, manager) = (session.bridge, session.manager)
        var reporter = try ReportSession(command: self)
        if CLLocationManager.launchReason == .location {
            printError("started again by locationd: the user moved while the reporter was not running")
        }
        let stopping = Self.stopOnSignals(bridge)
        defer { for source in stopping { source.cancel() } }
        // A silence is noticed within 5 s of running out (the policy's `nextTick`).
        let ticks = DispatchSource.makeTimerSource(queue: .main)
        ticks.schedule(deadline: .now() + 5, repeating: 5)
        ticks.setEventHandler { bridge.tick() }
        ticks.resume()
        defer { ticks.cancel() }
        manager.pausesLocationUpdatesAutomatically = false
        var started = false
        var askedForAlways = false
        loop: for await event in bridge.events {
            switch event {
            case let .authorization(status):
                guard try session.isAuthorized(status, always: true) else { continue }
                // Regions and significant changes reach an app that is not running only with Always (as on
                // iOS): a When In Use app is asked once to upgrade, and reports meanwhile.
                if status == .authorizedWhenInUse, !askedForAlways {
                    askedForAlways = true
                    printError("authorized when in use: asking for Always, without which a killed reporter stays dead")
                    manager.requestAlwaysAuthorization()
                }
                guard !started else { continue }
                started = true
                manager.startUpdatingLocation()
                manager.startMonitoringSignificantLocationChanges()
            case let .locations(locations):
                for location in locations {
                    let decisions = try await reporter.handle(Fix(location))
                    if let newest = decisions.last?.point { watch(around: newest, with: manager) }
                }
                // Out as they are made (a pipe is block-buffered): a person or a log follows them live.
                fflush(nil)
            case let .failure(error):
                try session.failIfDenied(error)
            case .paused:
                break
            case .sourceFinished:
                break loop
            case let .sourceProblem(reason):
                printError(reason)
            case .tick:
                // The policy's silence rule: no fix for a while settles the user.
                for decision in try reporter.passTime(to: Date()) { watch(around: decision.point, with: manager) }
                fflush(nil)
            }
        }
        manager.stopUpdatingLocation()
        try await reporter.finish()
    }

    /// Moves the wake-up region to the newest report. Its radius: the freshness bound (the distance the
    /// newest report may fall behind), at least 100 m, so that GNSS noise around a stop never crosses it.
    @MainActor
    private func watch(around point: ReportPoint, with manager: CLLocationManager) {
        let radius = max(100, freshness.value ?? 100)
        let region = CLCircularRegion(
            center: CLLocationCoordinate2D(latitude: point.latitude, longitude: point.longitude), radius: radius,
            identifier: Self.lastReportRegion)
        region.notifyOnEntry = false
        manager.startMonitoring(for: region)
    }

    /// SIGINT and SIGTERM end the live loop (then the summary and a last bounded drain) instead of the process.
    private static func stopOnSignals(_ bridge: ManagerBridge) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
            source.setEventHandler { bridge.stop() }
            source.resume()
            return source
        }
    }
}
