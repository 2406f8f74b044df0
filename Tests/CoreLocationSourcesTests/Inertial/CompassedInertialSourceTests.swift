import CoreLocationEngine
import Foundation
import Synchronization
import Testing

@testable import CoreLocationSources

/// Hands out whatever a test sends through the handler it was started with.
private final class Captured<Event: Sendable>: Sendable {
    let handler = Mutex<(@Sendable (Event) -> Void)?>(nil)
    func send(_ event: Event) { handler.withLock { $0 }?(event) }
}

private final class FakeIMU: InertialSource {
    let events = Captured<InertialSourceEvent>()
    var name: String { "fake-imu" }
    var isSimulated: Bool { false }
    var sampleRate: Double { 100 }
    func start(_ handler: @escaping @Sendable (InertialSourceEvent) -> Void) {
        events.handler.withLock { $0 = handler }
    }
    func stop() { events.handler.withLock { $0 = nil } }
}

private final class FakeCompass: HeadingSource {
    let events = Captured<HeadingSourceEvent>()
    var name: String { "fake-compass" }
    var isSimulated: Bool { false }
    func start(_ handler: @escaping @Sendable (HeadingSourceEvent) -> Void) {
        events.handler.withLock { $0 = handler }
    }
    func stop() { events.handler.withLock { $0 = nil } }
}

/// `CompassedInertialSource` (decision 0095, Compass): the compass of the IMU's board, as the body's heading, on the
/// IMU's samples.
struct CompassedInertialSourceTests {
    /// A level board whose x axis points 30° east of magnetic north sees H cos 30° on x and H sin 30° on y (y is
    /// the body's left, so the north component along it is sin ψ), and −Z on z.
    static func field(heading: Double, horizontal: Double = 20, vertical: Double = 45) -> DeviceVector {
        let psi = heading * .pi / 180
        return DeviceVector(x: horizontal * cos(psi), y: horizontal * sin(psi), z: -vertical)
    }

    static func level(_ time: Double) -> InertialSample {
        InertialSample(
            time: time, accelerationX: 0, accelerationY: 0, accelerationZ: 9.806_65, rotationRateX: 0,
            rotationRateY: 0, rotationRateZ: 0)
    }

    /// The reading read at 0.05 s goes on the first plausible sample at or after 0.05 s and on no other, as the
    /// heading of +x (30°, magnetic, its accuracy); an uncalibrated reading goes on none; a reading from before `stop`
    /// does not survive into the next run.
    @Test func theCompassReadingGoesOnTheNextSampleAsTheBodysHeading() {
        let scheduler = ManualScheduler()
        let imu = FakeIMU()
        let compass = FakeCompass()
        let source = CompassedInertialSource(imu, compass: compass, scheduler: scheduler)
        let received = Mutex<[InertialSample]>([])
        source.start { event in
            if case let .samples(samples) = event { received.withLock { $0 += samples } }
        }
        imu.events.send(.samples([Self.level(0), Self.level(0.01)]))
        scheduler.advance(by: 0.05)
        compass.events.send(.sample(HeadingSample(field: Self.field(heading: 30), accuracy: 4, timestamp: Date())))
        var broken = Self.level(0.05)
        broken.accelerationX = .nan  // dropped by the filter: the heading must not go with it
        imu.events.send(.samples([Self.level(0.04), broken, Self.level(0.06), Self.level(0.07)]))
        let samples = received.withLock { $0 }
        #expect(samples.map(\.time) == [0, 0.01, 0.04, 0.05, 0.06, 0.07])
        #expect(samples.map { $0.heading != nil } == [false, false, false, false, true, false])
        let heading = samples[4].heading
        #expect(abs((heading?.degrees ?? .nan) - 30) < 1e-9)
        #expect(heading?.accuracy == 4)
        #expect(heading?.isTrue == false)

        compass.events.send(.sample(HeadingSample(field: Self.field(heading: 50), accuracy: -1, timestamp: Date())))
        imu.events.send(.samples([Self.level(0.08)]))
        #expect(received.withLock { $0.last?.heading } == nil, "an uncalibrated compass is not attached")

        scheduler.advance(by: 0.05)
        compass.events.send(.sample(HeadingSample(field: Self.field(heading: 60), accuracy: 4, timestamp: Date())))
        source.stop()
        received.withLock { $0 = [] }
        source.start { event in
            if case let .samples(samples) = event { received.withLock { $0 += samples } }
        }
        imu.events.send(.samples([Self.level(0.2)]))
        #expect(received.withLock { $0.map(\.heading) } == [nil], "nothing from the last run")
    }

    /// A GNSS compass's true heading is passed on as true; the field is not used.
    @Test func aReportedTrueHeadingStaysTrue() {
        let sample = HeadingSample(
            field: DeviceVector(x: 0, y: 0, z: 0), accuracy: 0.5, timestamp: Date(),
            reported: ReportedHeading(trueHeading: 271))
        let heading = CompassedInertialSource.bodyHeading(sample, up: nil)
        #expect(heading == InertialSample.BodyHeading(degrees: 271, accuracy: 0.5, isTrue: true))
    }

    /// Up comes from the IMU's averaged specific force, not the level default: a board rolled 30° about its x axis
    /// (left side up) sees gravity's reaction at (0, sin 30°, cos 30°) g and the field rotated alike. With the IMU's
    /// up the heading of x is still 30°; taken as level it would not be.
    @Test func upIsTheIMUsAveragedSpecificForce() {
        let roll = 30 * Double.pi / 180
        // Rotating the level board's vectors into the rolled body: y' = y cos r + z sin r, z' = −y sin r + z cos r.
        func rolled(_ v: DeviceVector) -> DeviceVector {
            DeviceVector(x: v.x, y: v.y * cos(roll) + v.z * sin(roll), z: -v.y * sin(roll) + v.z * cos(roll))
        }
        let g = rolled(DeviceVector(x: 0, y: 0, z: 9.806_65))
        let field = rolled(Self.field(heading: 30))
        let scheduler = ManualScheduler()
        let imu = FakeIMU()
        let compass = FakeCompass()
        let source = CompassedInertialSource(imu, compass: compass, scheduler: scheduler)
        let received = Mutex<[InertialSample]>([])
        source.start { event in
            if case let .samples(samples) = event { received.withLock { $0 += samples } }
        }
        imu.events.send(
            .samples(
                (0..<100).map {
                    InertialSample(
                        time: Double($0) * 0.01, accelerationX: g.x, accelerationY: g.y, accelerationZ: g.z,
                        rotationRateX: 0, rotationRateY: 0, rotationRateZ: 0)
                }))
        scheduler.advance(by: 1)
        compass.events.send(.sample(HeadingSample(field: field, accuracy: 4, timestamp: Date())))
        imu.events.send(.samples([1.0, 1.01].map(Self.level)))
        let heading = received.withLock { $0.compactMap(\.heading).first }
        #expect(abs((heading?.degrees ?? .nan) - 30) < 0.5, "\(String(describing: heading))")
        let levelAnswer = HeadingMath.magneticHeading(
            field: field, up: DeviceVector(x: 0, y: 0, z: 1), of: DeviceVector(x: 1, y: 0, z: 0))
        #expect(abs((levelAnswer ?? 30) - 30) > 5, "taken as level: \(String(describing: levelAnswer))")
    }
}
