import CoreLocationEngine
import CoreLocationRuntime
import CoreLocationSources
import CoreLocationStorage
import Foundation
import Logging
import Synchronization
import Testing

/// An IMU test double: counts its starts and stops, and lets the test hand samples to whoever started it.
private final class CountingIMU: InertialSource {
    let name = "test-imu"
    let isSimulated = true
    let sampleRate = 100.0
    private let state = Mutex<(starts: Int, stops: Int, handler: (@Sendable (InertialSourceEvent) -> Void)?)>((0, 0, nil))

    var starts: Int { state.withLock { $0.starts } }
    var stops: Int { state.withLock { $0.stops } }
    var isRunning: Bool { state.withLock { $0.handler != nil } }

    func start(_ handler: @escaping @Sendable (InertialSourceEvent) -> Void) {
        state.withLock {
            $0.starts += 1
            $0.handler = handler
        }
    }

    func stop() {
        state.withLock {
            $0.stops += 1
            $0.handler = nil
        }
    }
}

/// The runtime's side of fusion (decision 0095, Wiring): the composition adds the IMU as a source, and the host
/// powers it only while a client wants locations from a GNSS-class source.
@Suite struct InertialRuntimeTests {
    @Test func theCompositionAddsTheIMUBesideAPositionSource() throws {
        let scheduler = ManualScheduler()
        let gnss = try SimulatedLocationSource(scenario: .fixed(latitude: 45, longitude: 13), scheduler: scheduler)
        let composed = Composition(sources: [gnss], scheduler: scheduler, environment: [:], inertial: CountingIMU())
        #expect(composed.sources.map(\.descriptor.kind) == [gnss.descriptor.kind, SourceDescriptor.inertialKind])
        #expect(composed.sources.last?.descriptor.id == SourceID("inertial:test-imu"))
        let alone = Composition(sources: [], scheduler: scheduler, environment: [:], inertial: CountingIMU())
        #expect(alone.sources.isEmpty, "an IMU alone gives no position: nothing to fuse")
        let none = Composition(sources: [gnss], scheduler: scheduler, environment: [:])
        #expect(none.sources.count == 1)
    }

    @Test func theIMUIsOnOnlyWhileAClientWantsLocations() throws {
        let scheduler = ManualScheduler()
        let store = try AuthorizationStore.inMemory()
        try store.save(AuthorizationDecision(appID: "org.example.imu", level: .whenInUse, decidedAt: Date()))
        let authorization = AuthorizationService(
            identity: AppIdentity(
                id: "org.example.imu", displayName: "IMU",
                info: ["CFBundleIdentifier": "org.example.imu", "NSLocationWhenInUseUsageDescription": "Tests."]),
            store: store, prompter: nil, environmentPolicy: nil, sourcesAreSimulated: true,
            services: LocationServicesSwitch(isEnabled: true), logger: Logger(label: "tests"))
        let imu = CountingIMU()
        let gnss = try SimulatedLocationSource(scenario: .fixed(latitude: 45, longitude: 13), scheduler: scheduler)
        let composition = Composition(sources: [gnss], scheduler: scheduler, environment: [:], inertial: imu)
        let runtime = composition.engineHost(authorization: authorization, regionStore: nil)
        #expect(imu.starts == 0, "off until someone asks")
        let client = runtime.addClient(label: "imu") { _ in }
        runtime.send(.startUpdates(UpdateRequest()), from: client)
        #expect(imu.isRunning && imu.starts == 1)
        runtime.send(.stopUpdates, from: client)
        #expect(!imu.isRunning && imu.stops == 1, "off again with the receiver")
        runtime.send(.unregister, from: client)
    }

    /// The hook every program's composition asks (`locationd`, `locationctl`, an app's shared runtime) finds the IIO
    /// accelerometer + gyroscope under `CORELOCATION_SYSFS_ROOT`, and nothing where there is none (an accelerometer
    /// alone, as a tilt-compensated compass has, is no IMU).
    @Test func theEnvironmentsHookFindsAnIIOUnit() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("imu-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let device = root + "/bus/iio/devices/iio:device0"
        try FileManager.default.createDirectory(atPath: device, withIntermediateDirectories: true)
        func write(_ file: String, _ text: String) throws {
            try text.write(toFile: device + "/" + file, atomically: true, encoding: .utf8)
        }
        try write("name", "bmi160\n")
        for axis in ["x", "y", "z"] { try write("in_accel_\(axis)_raw", "0\n") }
        try write("in_accel_scale", "0.000598\n")
        let environment = ["CORELOCATION_SYSFS_ROOT": root, "CORELOCATION_DEV_ROOT": root + "/dev"]
        let logger = Logger(label: "test")
        #expect(Composition.environmentInertialSource(
            environment: environment, scheduler: ManualScheduler(), logger: logger) == nil)
        for axis in ["x", "y", "z"] { try write("in_anglvel_\(axis)_raw", "0\n") }
        try write("in_anglvel_scale", "0.001065\n")
        let found = try #require(Composition.environmentInertialSource(
            environment: environment, scheduler: ManualScheduler(), logger: logger))
        #expect(found.name == "iio:device0 (bmi160)")
        #expect(!found.isSimulated)
    }
}
