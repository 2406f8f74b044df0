import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import CoreLocationSources
import Testing

@testable import CoreLocation

/// Walk 300 m east, stand 10 minutes, walk 500 m east: one point every 2 s, timed.
private func errand() throws -> SimulationScenario {
    var points: [RoutePoint] = []
    let origin = Date(timeIntervalSince1970: 1_750_000_000)
    var latitude = 45.76
    var longitude = 4.83
    var time = 0.0
    func add() {
        points.append(RoutePoint(latitude: latitude, longitude: longitude, time: origin.addingTimeInterval(time)))
        time += 2
    }
    func walk(_ metres: Double) {
        for _ in 0..<Int(metres / 2.8) {
            let p = Geodesic.wgs84.direct(latitude1: latitude, longitude1: longitude, azimuth1: 90, distance: 2.8)
            latitude = p.latitude
            longitude = p.longitude
            add()
        }
    }
    walk(300)  // 107 points: 0–212 s
    for _ in 0..<300 { add() }  // standing: 214–812 s
    walk(500)  // 178 points: 814–1168 s
    return .route(SimulatedRoute(name: "errand", points: points))
}

private let standingFrom = 214.0
private let standingUntil = 812.0

@Suite struct VisitsAndPauseTests {
    @Test func visitsArriveAsApplesDelegateCalls() throws {
        let h = try ManagerHarness(scenario: try errand())
        try h.authorize(.whenInUse)
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.startMonitoringVisits()
        for _ in 0..<1200 { h.advance(by: 1) }
        let visits = delegate.visits
        try #require(visits.count == 2)
        let origin = 1_750_000_000.0  // the harness clock's wall origin; the route starts at once
        #expect(visits[0].departureDate == .distantFuture)
        let arrival = visits[0].arrivalDate.timeIntervalSince1970 - origin
        #expect(arrival >= standingFrom - 24 && arrival <= standingFrom)
        #expect(visits[1].arrivalDate == visits[0].arrivalDate)
        let departure = visits[1].departureDate.timeIntervalSince1970 - origin
        // Settled in the visit the receiver looks once a minute, so the last fix seen there can be
        // up to a minute before the user left.
        #expect(departure >= standingUntil - 62 && departure <= standingUntil + 24)
        #expect(visits[1].horizontalAccuracy > 0 && visits[1].horizontalAccuracy < 30)
        // Visits alone ask for 100 m, not for the best there is; stopping them powers everything down.
        manager.stopMonitoringVisits()
        #expect(h.runtime.status().sources.allSatisfy { !$0.isPowered })
    }

    @Test func updatesPauseWhenTheRunnerStopsAndResumeWhenTheyLeave() throws {
        let h = try ManagerHarness(scenario: try errand())
        try h.authorize(.whenInUse)
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        #expect(manager.pausesLocationUpdatesAutomatically)
        manager.activityType = .fitness
        manager.startUpdatingLocation()
        var pausedAt: Double?
        var resumedAt: Double?
        for second in 1...1200 {
            h.advance(by: 1)
            if pausedAt == nil, delegate.calls.contains(.paused) { pausedAt = Double(second) }
            if resumedAt == nil, delegate.calls.contains(.resumed) { resumedAt = Double(second) }
        }
        let paused = try #require(pausedAt)
        let resumed = try #require(resumedAt)
        // Fitness pauses once every fix for 120 s lay within 25 m of the first: that first one is
        // already on the approach, at most 18 s of walking before the stop at 214 s.
        #expect(paused >= standingFrom + 100 && paused <= standingFrom + 122)
        // Leaving at 812 s is seen at a 30 s probe once the runner is 105 m away (~75 s of walking).
        #expect(resumed >= standingUntil + 70 && resumed <= standingUntil + 110)
        // Between pause and resume the source is on only for probes: the simulator answers a probe at
        // once, so the on-time is the route's 1 168 s minus nearly all of the pause.
        let onTime = try #require(h.runtime.status().sources.first?.onTime)
        #expect(onTime >= 1168 - (resumed - paused) && onTime <= 1168 - (resumed - paused) + 5)
        let calls = delegate.calls
        let pauseIndex = try #require(calls.firstIndex(of: .paused))
        let resumeIndex = try #require(calls.firstIndex(of: .resumed))
        #expect(pauseIndex < resumeIndex)
        // No locations between the two calls; locations again right after the resume.
        #expect(!calls[pauseIndex..<resumeIndex].contains { if case .locations = $0 { true } else { false } })
        #expect(calls[(resumeIndex + 1)...].contains { if case .locations = $0 { true } else { false } })
    }

    @Test func withoutAutomaticPausingTheUpdatesNeverStop() throws {
        let h = try ManagerHarness(scenario: try errand())
        try h.authorize(.whenInUse)
        let delegate = RecordingDelegate()
        let manager = h.manager(delegate)
        manager.pausesLocationUpdatesAutomatically = false
        manager.activityType = .fitness
        manager.startUpdatingLocation()
        for _ in 0..<1200 { h.advance(by: 1) }
        #expect(!delegate.calls.contains(.paused))
        #expect(delegate.locations.count >= 580)
    }
}
