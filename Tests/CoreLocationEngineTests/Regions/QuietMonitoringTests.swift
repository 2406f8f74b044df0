import Foundation
import Testing

@testable import CoreLocationEngine

/// Parked for an hour inside a monitored region, then driving out: the receiver only looks once a
/// minute while parked, and the exit is still reported.
@Suite("Quiet monitoring")
struct QuietMonitoringTests {
    /// (time, fix) at 1 Hz: parked at the region's centre for `parked` seconds, then 1.5 km east at 10 m/s.
    static func parkThenLeave(parked: Double) -> [(time: Double, fix: Fix)] {
        var fixes: [(Double, Fix)] = []
        var t = 0.0
        while t < parked {
            fixes.append((t, fix(home.latitude, home.longitude, at: t)))
            t += 1
        }
        for metres in stride(from: 10.0, through: 1500, by: 10) {
            let (lat, lon) = east(of: home.latitude, home.longitude, metres: metres)
            fixes.append((t, fix(lat, lon, at: t)))
            t += 1
        }
        return fixes
    }

    @Test("regions: an hour parked costs about a minute of receiver time; the exit still comes")
    func regionsGoQuiet() {
        var d = driver()
        d.send(.client(app, .startMonitoring(home)))
        let outcome = d.replay(Self.parkThenLeave(parked: 3600), through: gnss.id, warmUp: 1)
        #expect(d.trace(app).prefix(2) == ["start:home", "in:home"])
        #expect(d.trace(app).contains("exit:home"))
        // 120 s before quiet, then 1 s per 60 s look, then the 150 s of driving (less the wait for
        // the first look that sees it). Always on it would be 3 750 s.
        #expect(outcome.onTime >= 120 + 55 + 90 && outcome.onTime <= 120 + 2 * 60 + 150, "\(outcome)")
        // The exit: 200 m + 20 m hysteresis is passed 22 s after leaving; seen at a look at most 60 s
        // later, then 20 s of evidence.
        let exitAt = d.actions.first { if case .region(_, .exited) = $0.action { true } else { false } }?.time ?? .nan
        #expect(exitAt >= 3600 + 42 && exitAt <= 3600 + 22 + 60 + 21, "exit at \(exitAt)")
    }

    @Test("without quiet monitoring the receiver stays on all the time")
    func quietOff() {
        var configuration = LocationEngine.Configuration()
        configuration.monitoringProbeInterval = 0
        var d = EngineDriver(engine: LocationEngine(sources: [gnss], configuration: configuration))
        d.send(.client(app, .register(label: "test", authorization: whenInUse)))
        d.send(.client(app, .startMonitoring(home)))
        let outcome = d.replay(Self.parkThenLeave(parked: 3600), through: gnss.id, warmUp: 1)
        #expect(outcome.onTime >= 3749)
        #expect(d.trace(app).contains("exit:home"))
    }

    @Test("standard updates are not quietened; requestState gets its fixes at once")
    func updatesAndStateRequests() {
        var d = driver()
        d.send(.client(app, .startMonitoring(home)))
        d.send(.client(app, .startUpdates(UpdateRequest())))
        let outcome = d.replay(Self.parkThenLeave(parked: 600), through: gnss.id, warmUp: 1)
        #expect(outcome.onTime >= 749)

        var quiet = driver()
        quiet.send(.client(app, .startMonitoring(home)))
        quiet.replay(Self.parkThenLeave(parked: 300).filter { $0.time < 300 }, through: gnss.id, warmUp: 0)
        #expect(quiet.poweredSources.isEmpty, "quiet between looks")
        quiet.send(.client(app, .requestRegionState(identifier: "home")))
        // The state is known: it is answered at once, without waiting for a look.
        #expect(quiet.trace(app).last == "in:home")
    }
}
