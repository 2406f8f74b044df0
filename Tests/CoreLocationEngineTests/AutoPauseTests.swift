import Foundation
import CoreLocationEngine
import Testing

private func timeline(_ walk: Walk) -> [(time: Double, fix: Fix)] {
    walk.fixes.map { (seconds($0.timestamp) ?? 0, $0) }
}

private func pauses(_ d: EngineDriver, of client: ClientID = app) -> [(time: Double, paused: Bool)] {
    d.actions.compactMap {
        switch $0.action {
        case .paused(let id) where id == client: ($0.time, true)
        case .resumed(let id) where id == client: ($0.time, false)
        default: nil
        }
    }
}

private func updates(activity: Int, pauses: Bool = true) -> ClientCommand {
    .startUpdates(UpdateRequest(desiredAccuracy: -1, distanceFilter: -1, activityType: activity, pausesAutomatically: pauses))
}

/// A runner's app with automatic pausing, standing still for `seconds` at 1 Hz (paused at 120 s).
private func runnerStandingStill(_ seconds: Double) -> (EngineDriver, Walk) {
    var d = driver()
    d.send(.client(app, updates(activity: 3)))
    var walk = Walk(latitude: 45.76, longitude: 4.83)
    walk.step = 1
    walk.stay(seconds)
    d.replay(timeline(walk), through: gnss.id, warmUp: 0)
    return (d, walk)
}

@Suite("Automatic pausing")
struct AutoPauseTests {
    @Test("pauses after standing still for the activity's time, and powers the GNSS down", arguments: [
        (1, 180.0), (2, 300.0), (3, 120.0), (4, 300.0), (5, 600.0),
    ])
    func pausesPerActivity(activity: Int, stillFor: Double) {
        var d = driver()
        d.send(.client(app, updates(activity: activity)))
        var walk = Walk(latitude: 45.76, longitude: 4.83)
        walk.step = 1
        walk.stay(stillFor + 60)
        d.replay(timeline(walk), through: gnss.id, warmUp: 0)
        let events = pauses(d)
        #expect(events.count == 1)
        #expect(events.first?.paused == true)
        // Still since the first fix at t = 0: paused at the first fix at or after `stillFor`.
        #expect(events.first?.time == stillFor)
        let pausedAt = events.first?.time ?? 0
        let offAt = d.actions.first { if case .powerOff = $0.action { true } else { false } }?.time
        #expect(offAt == pausedAt)
        // Nothing is delivered after the pause.
        let lastDelivery = d.actions.last { if case .deliver = $0.action { true } else { false } }?.time ?? .infinity
        #expect(lastDelivery <= pausedAt)
    }

    @Test("without pausesLocationUpdatesAutomatically nothing pauses, and a red light never pauses")
    func noPause() {
        var d = driver()
        d.send(.client(app, updates(activity: 1, pauses: false)))
        var walk = Walk(latitude: 45.76, longitude: 4.83)
        walk.stay(3600)
        d.replay(timeline(walk), through: gnss.id)
        #expect(pauses(d).isEmpty)
        #expect(d.poweredSources == [gnss.id])

        var car = driver()
        car.send(.client(app, updates(activity: 2)))
        var drive = Walk(latitude: 45.76, longitude: 4.83)
        drive.walk(metres: 2000, speed: 12)
        drive.stay(120)
        drive.walk(metres: 2000, speed: 12)
        car.replay(timeline(drive), through: gnss.id)
        #expect(pauses(car).isEmpty)
    }

    @Test("while paused the GNSS only probes; leaving the stationary region resumes with that fix")
    func probesAndResumes() throws {
        var d = driver()
        d.send(.client(app, updates(activity: 3)))
        var walk = Walk(latitude: 45.76, longitude: 4.83)
        walk.step = 1
        walk.stay(1800)  // 30 min: paused at 120 s
        let leaveAt = walk.time
        walk.walk(metres: 600, speed: 3)  // a runner sets off
        let outcome = d.replay(timeline(walk), through: gnss.id, warmUp: 1)
        let events = pauses(d)
        try #require(events.map(\.paused) == [true, false])
        // Probes every 30 s: the runner is seen outside the 100 m region (105 m with accuracy) at
        // the first probe after ~35 s of running, so within 35 + 30 + 1 s of setting off.
        let resumedAt = events[1].time
        #expect(resumedAt > leaveAt + 34 && resumedAt <= leaveAt + 66)
        // During the 1 680 s of pause each 30 s probe costs 2 s (1 s warm-up, then the fix).
        let pausedOn = outcome.onTime - 120 - (walk.time - resumedAt)
        #expect(pausedOn > 50 && pausedOn < 130)
        // The resuming fix is delivered, and every fix after it.
        let delivered = d.deliveries(to: app).flatMap(\.fixes)
        let afterResume = timeline(walk).filter { $0.time >= resumedAt }.map(\.fix)
        #expect(Array(delivered.suffix(afterResume.count)) == afterResume)
    }

    @Test("startUpdatingLocation while paused resumes at once and does not pause again at the next fix")
    func restartResumes() {
        var (d, walk) = runnerStandingStill(130)
        #expect(pauses(d).map(\.paused) == [true])
        d.send(.client(app, updates(activity: 3)))
        #expect(d.poweredSources == [gnss.id])
        let before = d.deliveries(to: app).count
        walk.fixes.removeAll()
        walk.stay(60)
        d.replay(timeline(walk), through: gnss.id, warmUp: 0)
        #expect(pauses(d).count == 1)
        #expect(d.deliveries(to: app).count >= before + 59)
    }

    @Test("requestLocation while paused is answered")
    func requestWhilePaused() {
        var (d, walk) = runnerStandingStill(125)
        #expect(d.poweredSources.isEmpty)
        // Past the 60 s a cached fix stays fresh, between probes (150–165 s, then 195 s).
        d.advance(to: 190)
        #expect(d.poweredSources.isEmpty)
        d.send(.client(app, .requestLocation(UpdateRequest())))
        #expect(d.poweredSources == [gnss.id])
        walk.time = 190
        walk.fixes.removeAll()
        walk.stay(3)
        d.replay(timeline(walk), through: gnss.id, warmUp: 0)
        #expect(d.deliveries(to: app).last?.isRequestedLocation == true)
        #expect(pauses(d).map(\.paused) == [true])
    }
}
