import Foundation
import CoreLocationEngine
import Testing

@testable import CoreLocationSources

@Suite("Simulated location source")
struct SimulatedLocationSourceTests {
    let wallOrigin = Date(timeIntervalSince1970: 1_700_000_000)

    @Test("descriptor")
    func descriptor() throws {
        let source = try SimulatedLocationSource(
            scenario: .fixed(latitude: 1, longitude: 2), scheduler: ManualScheduler()
        )
        #expect(source.descriptor.kind == "simulated")
        #expect(source.descriptor.expectedAccuracy == 5)
        #expect(source.descriptor.powerCost == 1)
        #expect(source.descriptor.isSimulated)
        #expect(source.descriptor.id == SourceID("simulated"))
    }

    @Test("fixed place: one fix per second, 5 m, speed 0, course -1, wall-clock timestamps")
    func fixed() throws {
        let scheduler = ManualScheduler(wallOrigin: wallOrigin)
        scheduler.advance(by: 100)
        let source = try SimulatedLocationSource(
            scenario: .fixed(latitude: 48.8584, longitude: 2.2945), scheduler: scheduler
        )
        let recorder = EventRecorder()
        source.start(recorder.handler)
        #expect(recorder.events.isEmpty)  // nothing is delivered inside start
        scheduler.runDue()
        #expect(recorder.fixes.count == 1)
        scheduler.advance(by: 4.5)
        let fixes = recorder.fixes
        #expect(fixes.count == 5)
        #expect(fixes.map(\.timestamp) == (0..<5).map { wallOrigin.addingTimeInterval(100 + Double($0)) })
        for fix in fixes {
            #expect(fix.latitude == 48.8584 && fix.longitude == 2.2945)
            #expect(fix.horizontalAccuracy == 5 && fix.speed == 0 && fix.course == -1 && fix.isSimulated)
        }
        source.stop()
        scheduler.advance(by: 10)
        #expect(recorder.fixes.count == 5)
        #expect(scheduler.pendingCount == 0)
    }

    @Test("route: advancing time emits exactly the fixes due, then .finished")
    func route() throws {
        let scheduler = ManualScheduler(wallOrigin: wallOrigin)
        let source = try SimulatedLocationSource(scenario: .route(equatorRoute(count: 4)), scheduler: scheduler)
        let recorder = EventRecorder()
        source.start(recorder.handler)
        scheduler.runDue()
        #expect(recorder.fixes.map(\.longitude) == [0])
        scheduler.advance(by: 9.9)
        #expect(recorder.fixes.count == 1)
        scheduler.advance(by: 0.1)
        #expect(recorder.fixes.map(\.longitude) == [0, 0.001])
        #expect(recorder.fixes.last?.timestamp == wallOrigin.addingTimeInterval(10))
        scheduler.advance(by: 20)
        #expect(recorder.fixes.count == 4)
        #expect(recorder.events.last == .finished)
        #expect(recorder.fixes.allSatisfy { $0.isSimulated })
        #expect(recorder.fixes.map(\.timestamp) == [0, 10, 20, 30].map { wallOrigin.addingTimeInterval($0) })
        #expect(scheduler.pendingCount == 0)
    }

    @Test("speed ×10: the same fixes, 10× sooner")
    func tenTimes() throws {
        let scheduler = ManualScheduler(wallOrigin: wallOrigin)
        let source = try SimulatedLocationSource(
            scenario: .route(equatorRoute(count: 11)), speed: 10, scheduler: scheduler
        )
        let recorder = EventRecorder()
        source.start(recorder.handler)
        scheduler.advance(by: 5)
        #expect(recorder.fixes.count == 6)
        // Stamped with the simulation's time (decision 0062): playback start plus the recorded seconds,
        // so the fixes keep the recording's pace (a point every 10 s) while arriving 10× sooner.
        #expect(recorder.fixes.map(\.timestamp) == (0...5).map { wallOrigin.addingTimeInterval(10 * Double($0)) })
        scheduler.advance(by: 5)
        #expect(recorder.fixes.count == 11)
        #expect(recorder.events.last == .finished)
    }

    @Test("speed .infinity: the whole route at once, in order, then .finished")
    func asFastAsPossible() throws {
        let scheduler = ManualScheduler(wallOrigin: wallOrigin)
        let source = try SimulatedLocationSource(
            scenario: .route(equatorRoute(count: 50)), speed: .infinity, scheduler: scheduler
        )
        let recorder = EventRecorder()
        source.start(recorder.handler)
        scheduler.runDue()
        #expect(recorder.fixes.count == 50)
        #expect(recorder.fixes.map(\.longitude) == (0..<50).map { Double($0) * 0.001 })
        #expect(recorder.events.last == .finished)
        #expect(scheduler.now == 0)
    }

    @Test("stop() stops emissions, also from inside the handler; restart resumes at the current position")
    func stopAndRestart() throws {
        let scheduler = ManualScheduler(wallOrigin: wallOrigin)
        let source = try SimulatedLocationSource(scenario: .route(equatorRoute(count: 10)), scheduler: scheduler)
        let recorder = EventRecorder()
        source.start(recorder.handler)
        scheduler.advance(by: 10)
        source.stop()
        scheduler.advance(by: 35)  // points at 20, 30, 40 pass while stopped
        #expect(recorder.fixes.count == 2)
        source.start(recorder.handler)
        scheduler.runDue()
        #expect(recorder.fixes.map(\.longitude) == [0, 0.001, 0.004])  // current position first
        scheduler.advance(by: 5)
        #expect(recorder.fixes.last?.longitude == 0.005)

        let inner = EventRecorder()
        let stopping = try SimulatedLocationSource(
            scenario: .route(equatorRoute(count: 10)), speed: .infinity, scheduler: scheduler
        )
        stopping.start { [inner] event in
            inner.handler(event)
            stopping.stop()
        }
        scheduler.runDue()
        #expect(inner.events.count == 1)
    }

    @Test("invalid speed throws")
    func invalidSpeed() {
        #expect(throws: SimulationError.self) {
            try SimulatedLocationSource(
                scenario: .fixed(latitude: 0, longitude: 0), speed: 0, scheduler: ManualScheduler()
            )
        }
    }

    @Test("real time: DispatchScheduler delivers the first fix without a test clock")
    func dispatch() async throws {
        let source = try SimulatedLocationSource(
            scenario: .route(equatorRoute(count: 3)), speed: .infinity, scheduler: DispatchScheduler()
        )
        let events = AsyncStream<SourceEvent> { continuation in
            source.start { event in
                continuation.yield(event)
                if event == .finished { continuation.finish() }
            }
        }
        var count = 0
        for await event in events where event != .finished { count += 1 }
        source.stop()
        #expect(count == 3)
    }
}
