import CoreLocationEngine
import Foundation

/// The I/O and bookkeeping of one run of an `IIOInertialSource`: opens the devices (buffered or polled), reads what
/// arrived on each poll, turns it into checked samples, and closes the devices. Owned by the source's run, under its
/// lock; not shared.
struct IIOInertialReader: Sendable {
    let sensors: IIOInertialSensors
    let mode: IIOInertialSource.Mode
    let rate: Double
    let sysfsRoot: String
    let devRoot: String

    private struct Opened: Sendable {
        var buffers: [IIOBufferedDevice]
        var accelerometer: IIOAxisCalibration
        var gyroscope: IIOAxisCalibration
        var accelerometerRange: ClosedRange<Int64>
        var gyroscopeRange: ClosedRange<Int64>
    }

    private var opened: Opened?
    private var mapping = IIOTimestampMapping()
    private var pairing = InertialPairing()
    private var check: InertialSampleCheck
    private var lastTime = -Double.infinity
    let accelerometerMount: IIOMountMatrix
    let gyroscopeMount: IIOMountMatrix
    /// The devices' sampling frequency once opened (the lowest of the two devices'), Hz.
    private(set) var deviceRate: Double?
    /// Samples delivered, and the times of the first and the last.
    private(set) var delivered = 0
    private(set) var firstDelivered: Double?

    init(
        sensors: IIOInertialSensors, mode: IIOInertialSource.Mode, rate: Double, sysfsRoot: String, devRoot: String,
        accelerometerMount: IIOMountMatrix, gyroscopeMount: IIOMountMatrix
    ) {
        self.sensors = sensors
        self.mode = mode
        self.rate = rate
        self.sysfsRoot = sysfsRoot
        self.devRoot = devRoot
        self.accelerometerMount = accelerometerMount
        self.gyroscopeMount = gyroscopeMount
        check = InertialSampleCheck(rate: rate)
    }

    var isOpen: Bool { opened != nil }

    /// Samples per second delivered so far (nil before two).
    var measuredRate: Double? {
        guard delivered > 1, let firstDelivered, lastTime > firstDelivered else { return nil }
        return Double(delivered - 1) / (lastTime - firstDelivered)
    }

    /// One poll at scheduler time `now`: the events to deliver, in order.
    mutating func poll(now: Double) -> [InertialSourceEvent] {
        if let gone = sensors.devices.first(where: { !FileManager.default.fileExists(atPath: $0.path) }) {
            close()
            return [.unavailable(reason: "\(gone.deviceName) disappeared")]
        }
        do {
            if opened == nil { try open() }
            let dropped = pairing.dropped
            let pairs = try mode == .buffered ? readBuffers(now: now) : readPolled(now: now)
            var events = checked(pairs)
            if pairing.dropped > dropped {
                events.append(.unavailable(reason: "\(sensors.accelerometer.deviceName) delivers no scans"))
            }
            return events
        } catch {
            close()
            return [.unavailable(reason: error.message)]
        }
    }

    /// Buffers off, nodes closed, history forgotten (a run that starts again begins afresh).
    mutating func close() {
        if var current = opened {
            for index in current.buffers.indices { current.buffers[index].close() }
        }
        opened = nil
        mapping.reset()
        pairing.reset()
        check.reset()
    }

    private mutating func open() throws(IIOError) {
        let accelerometer = try IIOAxisCalibration.read(sensors.accelerometer, type: "accel")
        let gyroscope = try IIOAxisCalibration.read(sensors.gyroscope, type: "anglvel")
        var buffers: [IIOBufferedDevice] = []
        var rates: [Double] = []
        if mode == .buffered {
            do {
                for device in sensors.devices {
                    let buffer = try IIOBufferedDevice.open(
                        device, types: sensors.types(of: device), rate: rate, sysfsRoot: sysfsRoot, devRoot: devRoot)
                    buffers.append(buffer)
                    if let frequency = buffer.samplingFrequency { rates.append(frequency) }
                }
            } catch {
                for index in buffers.indices { buffers[index].close() }
                throw error
            }
        } else {
            for device in sensors.devices {
                let types = sensors.types(of: device)
                if let frequency = IIOBufferedDevice.setSamplingFrequency(device, types: types, rate: rate) {
                    rates.append(frequency)
                }
            }
        }
        deviceRate = rates.min()
        // One second of samples at the rate actually read (polled: never faster than the device converts).
        let effective = mode == .buffered ? deviceRate ?? rate : min(rate, deviceRate ?? rate)
        check = InertialSampleCheck(rate: effective)
        opened = Opened(
            buffers: buffers, accelerometer: accelerometer, gyroscope: gyroscope,
            accelerometerRange: Self.rawRange(sensors.accelerometer, "accel"),
            gyroscopeRange: Self.rawRange(sensors.gyroscope, "anglvel"))
    }

    /// The converter's range from the scan type when the device states one, else a signed 16-bit converter's.
    static func rawRange(_ device: IIODevice, _ type: String) -> ClosedRange<Int64> {
        let scanElements = IIOBufferLayout.of(device.path)?.scanElements ?? "scan_elements"
        let text = try? String(contentsOfFile: "\(device.path)/\(scanElements)/in_\(type)_x_type", encoding: .utf8)
        return text.flatMap { IIOScanFormat($0) }?.rawRange ?? -32768...32767
    }

    private func reading(
        _ type: String, raw: [Int64], time: Double, calibration: IIOAxisCalibration, range: ClosedRange<Int64>
    ) -> InertialReading {
        let mount = type == "accel" ? accelerometerMount : gyroscopeMount
        return InertialReading(
            time: time, raw: raw, value: mount.apply(calibration.apply(raw)),
            isSaturated: raw.contains { $0 <= range.lowerBound || $0 >= range.upperBound })
    }

    /// One sample from the `_raw` files, stamped `now`.
    private mutating func readPolled(now: Double) throws(IIOError) -> [(InertialReading, InertialReading)] {
        guard let opened else { return [] }
        func raw(_ device: IIODevice, _ type: String) throws(IIOError) -> [Int64] {
            var values: [Int64] = []
            for axis in ["x", "y", "z"] {
                let file = "in_\(type)_\(axis)_raw"
                let number = try device.number(file)
                guard let value = Int64(exactly: number) else {
                    throw IIOError(message: "\(device.deviceName): \(file) does not hold an integer")
                }
                values.append(value)
            }
            return values
        }
        let accelerometerRaw = try raw(sensors.accelerometer, "accel")
        let gyroscopeRaw = try raw(sensors.gyroscope, "anglvel")
        let a = reading(
            "accel", raw: accelerometerRaw, time: now, calibration: opened.accelerometer,
            range: opened.accelerometerRange)
        let g = reading(
            "anglvel", raw: gyroscopeRaw, time: now, calibration: opened.gyroscope, range: opened.gyroscopeRange)
        return [(a, g)]
    }

    /// The scans that arrived in every buffer, on the scheduler's timeline, joined into pairs.
    private mutating func readBuffers(now: Double) throws(IIOError) -> [(InertialReading, InertialReading)] {
        guard var current = opened else { return [] }
        defer { opened = current }
        var scansPerBuffer: [[[Int64]]] = []
        for index in current.buffers.indices {
            let bytes = try current.buffers[index].readAvailable()
            scansPerBuffer.append(current.buffers[index].decode(bytes))
        }
        // One mapping for all the unit's timestamps: its devices share the IIO clock.
        var stamped: [Int64] = []
        for (index, scans) in scansPerBuffer.enumerated() {
            guard let position = current.buffers[index].decoder.layout.position(of: "in_timestamp") else { continue }
            stamped += scans.map { $0[position] }
        }
        var times = mapping.times(of: stamped, readAt: now)[...]
        var accelerations: [InertialReading] = []
        var rates: [InertialReading] = []
        for (index, scans) in scansPerBuffer.enumerated() {
            let layout = current.buffers[index].decoder.layout
            let stampPosition = layout.position(of: "in_timestamp")
            for (number, scan) in scans.enumerated() {
                // Without a timestamp channel: the newest scan at `now`, the others a nominal period apart.
                let time =
                    stampPosition != nil
                    ? times.popFirst() ?? now : now - Double(scans.count - 1 - number) / max(rate, 1)
                for type in current.buffers[index].types {
                    let raw = ["x", "y", "z"].map { axis in
                        layout.position(of: "in_\(type)_\(axis)").map { scan[$0] } ?? 0
                    }
                    let isAccelerometer = type == "accel"
                    let value = reading(
                        type, raw: raw, time: time,
                        calibration: isAccelerometer ? current.accelerometer : current.gyroscope,
                        range: isAccelerometer ? current.accelerometerRange : current.gyroscopeRange)
                    if isAccelerometer { accelerations.append(value) } else { rates.append(value) }
                }
            }
        }
        if sensors.isCombined { return Array(zip(accelerations, rates)) }
        return pairing.add(
            accelerations: accelerations.sorted { $0.time < $1.time }, rates: rates.sorted { $0.time < $1.time })
    }

    /// Checked samples as events: runs of good samples as `.samples`, each run of withheld ones as one
    /// `.unavailable` naming why; a sample not later than the last delivered one is dropped.
    private mutating func checked(_ pairs: [(InertialReading, InertialReading)]) -> [InertialSourceEvent] {
        var events: [InertialSourceEvent] = []
        var batch: [InertialSample] = []
        var lastReason: String?
        for (a, g) in pairs where g.time > lastTime {
            let sample = InertialSample(
                time: g.time, accelerationX: a.value.x, accelerationY: a.value.y, accelerationZ: a.value.z,
                rotationRateX: g.value.x, rotationRateY: g.value.y, rotationRateZ: g.value.z)
            if let problem = check.problem(
                raw: a.raw + g.raw, isSaturated: a.isSaturated || g.isSaturated, sample: sample)
            {
                if !batch.isEmpty { events.append(.samples(batch)) }
                batch = []
                if problem != lastReason { events.append(.unavailable(reason: "\(sensors.label): \(problem)")) }
                lastReason = problem
                continue
            }
            lastReason = nil
            batch.append(sample)
            lastTime = sample.time
            if firstDelivered == nil { firstDelivered = sample.time }
            delivered += 1
        }
        if !batch.isEmpty { events.append(.samples(batch)) }
        return events
    }
}
