import Foundation
import CoreLocationGeodesy
import CoreLocationEngine
import CoreLocationSources
import Synchronization
import Testing

@testable import CoreLocation
import CoreLocationRuntime

/// Records heading-related delegate calls.
final class HeadingDelegate: NSObject, CLLocationManagerDelegate, Sendable {
    private let state = Mutex<(headings: [CLHeading], errors: [CLError.Code], calibrationAsks: Int)>(([], [], 0))
    let answerCalibration: Bool

    init(answerCalibration: Bool = true) { self.answerCalibration = answerCalibration }

    var headings: [CLHeading] { state.withLock { $0.headings } }
    var errors: [CLError.Code] { state.withLock { $0.errors } }
    var calibrationAsks: Int { state.withLock { $0.calibrationAsks } }

    func locationManager(_ manager: CLLocationManager, didUpdateHeading newHeading: CLHeading) {
        state.withLock { $0.headings.append(newHeading) }
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        guard let code = (error as? CLError)?.code else { return }
        state.withLock { $0.errors.append(code) }
    }

    func locationManagerShouldDisplayHeadingCalibration(_ manager: CLLocationManager) -> Bool {
        state.withLock { $0.calibrationAsks += 1 }
        return answerCalibration
    }
}

/// A heading source the test drives by hand.
final class ScriptedHeadingSource: HeadingSource {
    private let handler = Mutex<(@Sendable (HeadingSourceEvent) -> Void)?>(nil)
    private let starts = Mutex(0)
    var name: String { "scripted" }
    var isSimulated: Bool { true }
    var startCount: Int { starts.withLock { $0 } }
    var isOn: Bool { handler.withLock { $0 != nil } }
    func start(_ handler: @escaping @Sendable (HeadingSourceEvent) -> Void) {
        starts.withLock { $0 += 1 }
        self.handler.withLock { $0 = handler }
    }
    func stop() { handler.withLock { $0 = nil } }
    func send(_ event: HeadingSourceEvent) { handler.withLock { $0 }?(event) }
}

struct ManagerHeadingTests {
    /// The flat device of `HeadingStateMachineTests`, at a wall-clock date.
    static func sample(_ heading: Double, accuracy: Double = 3, jitter: Double = 0, date: Date) -> HeadingSourceEvent {
        let psi = heading * .pi / 180
        return .sample(
            HeadingSample(
                field: DeviceVector(x: -20 * sin(psi) + jitter, y: 20 * cos(psi), z: -45),
                gravity: DeviceVector(x: 0, y: 0, z: 9.8), accuracy: accuracy, timestamp: date
            ))
    }

    func setUp() throws -> (ManagerHarness, ScriptedHeadingSource, CLLocationManager, HeadingDelegate) {
        let h = try ManagerHarness()
        let source = ScriptedHeadingSource()
        h.runtime.useHeading(HeadingRuntime(source: source, scheduler: h.scheduler))
        let delegate = HeadingDelegate()
        let manager = CLLocationManager(runtime: h.runtime, target: h.target)
        manager.delegate = delegate
        h.flush()
        return (h, source, manager, delegate)
    }

    /// Headings arrive through the delegate on the manager's thread, filtered by `headingFilter`,
    /// `heading` holds the last; the source is powered only while updating.
    @Test func deliversFilteredHeadings() throws {
        let (h, source, manager, delegate) = try setUp()
        #expect(manager.heading == nil && !source.isOn)
        manager.headingFilter = 5
        manager.startUpdatingHeading()
        #expect(source.isOn)
        let date = h.scheduler.wallNow
        for (i, heading) in [10.0, 12, 16, 30].enumerated() {
            source.send(Self.sample(heading, jitter: Double(i) * 1e-7, date: date))
        }
        h.flush()
        #expect(delegate.headings.map { ($0.magneticHeading * 1000).rounded() / 1000 } == [10, 16, 30])
        #expect(delegate.headings.allSatisfy { $0.trueHeading == -1 && $0.headingAccuracy == 3 })
        #expect(abs((manager.heading?.magneticHeading ?? 0) - 30) < 1e-6)
        #expect(abs((manager.heading?.z ?? 0) + 45) < 1e-12)
        manager.stopUpdatingHeading()
        #expect(!source.isOn)
        source.send(Self.sample(200, date: date))
        h.flush()
        #expect(delegate.headings.count == 3)
        #expect(abs((manager.heading?.magneticHeading ?? 0) - 30) < 1e-6)  // still the last one
    }

    /// With location authorized and a fix known, trueHeading = magnetic + WMM declination there.
    @Test func trueHeadingFromTheLastFix() throws {
        let (h, source, manager, delegate) = try setUp()
        try h.authorize(.whenInUse)
        manager.startUpdatingLocation()
        h.advance(by: 1)
        let fix = try #require(h.runtime.latestFix)
        manager.startUpdatingHeading()
        let date = h.scheduler.wallNow
        source.send(Self.sample(90, date: date))
        h.flush()
        let heading = try #require(delegate.headings.last)
        let d = try MagneticModel.wmm2025.field(
            latitude: fix.latitude, longitude: fix.longitude, heightKilometers: fix.ellipsoidalAltitude / 1000,
            decimalYear: HeadingMath.decimalYear(date)
        ).declination
        #expect(abs(heading.trueHeading - (90 + d)) < 1e-9)
        #expect(abs(d) > 0.5)  // Paris, 2025: about +2°; proves the correction is applied
    }

    /// Stuck, vanished or saturated sensors become kCLErrorHeadingFailure, never a heading.
    @Test func failuresReportHeadingFailure() throws {
        let (h, source, manager, delegate) = try setUp()
        manager.startUpdatingHeading()
        source.send(.unavailable(reason: "iio:device0 disappeared"))
        source.send(.unavailable(reason: "iio:device0 disappeared"))
        var saturated = HeadingSample(field: DeviceVector(x: 3000, y: 0, z: 0), accuracy: 3, timestamp: Date())
        saturated.isSaturated = true
        source.send(.sample(saturated))
        h.flush()
        #expect(delegate.errors == [.headingFailure, .headingFailure])
        #expect(delegate.headings.isEmpty)
    }

    /// Uncalibrated samples ask the delegate once; its answer is remembered until dismissed.
    @Test func calibrationDisplay() throws {
        let (h, source, manager, delegate) = try setUp()
        manager.startUpdatingHeading()
        let date = h.scheduler.wallNow
        source.send(Self.sample(10, accuracy: -1, date: date))
        source.send(Self.sample(20, accuracy: -1, date: date))
        h.flush()
        #expect(delegate.calibrationAsks == 1)
        #expect(delegate.headings.first?.headingAccuracy == -1)
        #expect(manager.isDisplayingHeadingCalibration)
        manager.dismissHeadingCalibrationDisplay()
        #expect(!manager.isDisplayingHeadingCalibration)
    }
}

struct ManagerLifetimeHeadingTests {
    /// A manager released while updating heading stops costing power at the next sample.
    @Test func releasedManagerPowersTheSourceOff() throws {
        let h = try ManagerHarness()
        let source = ScriptedHeadingSource()
        h.runtime.useHeading(HeadingRuntime(source: source, scheduler: h.scheduler))
        var manager: CLLocationManager? = CLLocationManager(runtime: h.runtime, target: h.target)
        manager?.startUpdatingHeading()
        #expect(source.isOn)
        manager = nil
        source.send(ManagerHeadingTests.sample(10, date: h.scheduler.wallNow))
        #expect(!source.isOn)
        #expect(source.startCount == 1)
    }
}
