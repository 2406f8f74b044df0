import CoreLocationEngine
import CoreLocationRuntime
import CoreLocationSources
import CoreLocationStorage
import Foundation
import Logging
import Synchronization
import Testing

/// A recorded drive's fixes replayed on a scheduler at their recorded instants (timestamp − the timeline's origin),
/// then `.finished`: the GNSS half of a replay, beside `ReplayedInertialSource`.
private final class FixReplay: LocationSource {
    let descriptor = SourceDescriptor(
        id: SourceID("replay"), kind: "nmea", expectedAccuracy: 5, powerCost: 100, isSimulated: true)
    let fixes: [Fix]
    let scheduler: any Scheduler
    private let handler = Mutex<(@Sendable (SourceEvent) -> Void)?>(nil)

    init(fixes: [Fix], scheduler: any Scheduler) {
        self.fixes = fixes
        self.scheduler = scheduler
    }

    func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        self.handler.withLock { $0 = handler }
        step(0)
    }

    func stop() { handler.withLock { $0 = nil } }

    private func step(_ index: Int) {
        let origin = scheduler.wallClock(at: 0)
        let instant = index < fixes.count ? fixes[index].timestamp.timeIntervalSince(origin) : scheduler.now
        scheduler.schedule(at: instant) { [self] in
            guard let handler = handler.withLock({ $0 }) else { return }
            handler(index < fixes.count ? .fix(fixes[index]) : .finished)
            if index < fixes.count { step(index + 1) }
        }
    }
}

/// The same drive with its IMU replayed at 1× on a hand-moved clock and as fast as possible on the recording's
/// timeline gives the same fused fixes, through the runtime that hosts the engine (decision 0095, Wiring).
@Suite struct FusedReplayTests {
    static let origin = Date(timeIntervalSince1970: 1_000)

    /// 90 s east at 12 m/s with a 20 s GNSS gap from 50 s: fixes and samples on the recording's clock (s since 1970).
    static func drive() throws -> (fixes: [Fix], samples: [InertialSample]) {
        let plane = LocalTangentPlane(latitude: 45.2, longitude: 13.6)
        let points = (0...90).map { second -> (time: Double, latitude: Double, longitude: Double) in
            let (latitude, longitude) = plane.unproject(east: 12 * Double(second), north: 0)
            return (1_000 + Double(second), latitude, longitude)
        }
        let synthesizer = try #require(InertialSynthesizer(points: points))
        let fixes = synthesizer.gnssFixes(seed: 11).map(\.fix).filter {
            !(1_050...1_070).contains($0.timestamp.timeIntervalSince1970)
        }
        return (fixes, synthesizer.inertialSamples(seed: 12))
    }

    /// Runs the replay through an `EngineHost` on `scheduler`; `finish` moves the clock (or waits) until the GNSS
    /// replay said `.finished`. Returns the fixes the client was delivered.
    static func run(
        on scheduler: any Scheduler, finish: (any Scheduler, DispatchSemaphore) -> Bool
    ) throws -> [Fix] {
        let (fixes, samples) = try drive()
        let store = try AuthorizationStore.inMemory()
        try store.save(AuthorizationDecision(appID: "org.example.fused", level: .whenInUse, accuracy: .full, decidedAt: Date()))
        let authorization = AuthorizationService(
            identity: AppIdentity(
                id: "org.example.fused", displayName: "Fused",
                info: ["CFBundleIdentifier": "org.example.fused", "NSLocationWhenInUseUsageDescription": "Tests."]),
            store: store,
            prompter: nil, environmentPolicy: nil, sourcesAreSimulated: true,
            services: LocationServicesSwitch(isEnabled: true), logger: Logger(label: "tests"))
        let inertial = ReplayedInertialSource(samples: samples, name: "drive.imu.csv", scheduler: scheduler)
        let runtime = EngineHost(
            sources: [FixReplay(fixes: fixes, scheduler: scheduler), InertialLocationSource(inertial)],
            scheduler: scheduler, authorization: authorization)
        let finished = DispatchSemaphore(value: 0)
        runtime.observeSources { _, event in if event == .finished { finished.signal() } }
        let delivered = Mutex<[Fix]>([])
        let client = runtime.addClient(label: "fused") { event in
            if case let .delivery(delivery) = event { delivered.withLock { $0 += delivery.fixes } }
        }
        runtime.send(.startUpdates(UpdateRequest()), from: client)
        #expect(finish(scheduler, finished), "the replay ends")
        runtime.send(.unregister, from: client)
        return delivered.withLock { $0 }
    }

    @Test func aReplayGivesTheSameFusedFixesAtEverySpeed() throws {
        let manual = try Self.run(on: ManualScheduler(wallOrigin: Self.origin)) { scheduler, finished in
            (scheduler as? ManualScheduler)?.advance(by: 95)
            return finished.wait(timeout: .now()) == .success
        }
        let timeline = ReplayScheduler(speed: .infinity, wallOrigin: Self.origin)
        defer { timeline.shutdown() }
        let fast = try Self.run(on: timeline) { _, finished in finished.wait(timeout: .now() + 60) == .success }
        #expect(manual.count >= 85, "a fix a second, the 20 s gap dead-reckoned (\(manual.count))")
        #expect(manual.filter(\.isFused).count >= 80)
        #expect(manual.contains { (1_051...1_069).contains($0.timestamp.timeIntervalSince1970) && $0.isFused })
        #expect(fast == manual)
    }
}
