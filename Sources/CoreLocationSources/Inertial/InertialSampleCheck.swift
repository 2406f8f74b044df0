import CoreLocationEngine
import Foundation

/// Rejects samples no working IMU gives (decision 0096), in this order:
/// - saturated: an axis at the end of its converter's range (`IIOScanFormat.rawRange`; ±32767/−32768 when polled
///   without a scan type): clipped, so the true value is unknown;
/// - implausible: not finite or beyond ±16 g / ±2000 °/s (`InertialSample.isPlausible`);
/// - frozen: the same six raw values in `frozenAfter` consecutive samples. A live MEMS sensor's noise moves the
///   last bits of its axes (a BMI160 at 100 Hz: 180 µg/√Hz is 2–3 counts RMS on each accelerometer axis even at
///   ±16 g; a gyro axis at ±2000 °/s repeats more often, but all six together about once in 10⁴ samples), so six
///   axes repeating 10 times in a row does not happen by chance; a
///   driver that stopped converting (a lost data-ready interrupt, a sensor put to sleep under the driver) returns
///   its last conversion forever. `frozenAfter` is one second of samples (at least 10): long enough that a sensor
///   polled faster than it converts is not flagged, short enough that the filter does not integrate a stuck
///   rate for long. The first `frozenAfter − 1` repeats were delivered already; from the `frozenAfter`-th on, the
///   samples are withheld until a value changes.
public struct InertialSampleCheck: Sendable, Hashable {
    public let frozenAfter: Int
    private var last: [Int64]?
    private var repeats = 0

    /// - Parameter rate: samples per second; `frozenAfter` = max(10, rate).
    public init(rate: Double) {
        frozenAfter = rate.isFinite ? max(10, Int(rate.rounded())) : 10
    }

    /// Nil for a good sample; else why it is withheld.
    public mutating func problem(raw: [Int64], isSaturated: Bool, sample: InertialSample) -> String? {
        if raw == last {
            repeats += 1
        } else {
            last = raw
            repeats = 1
        }
        if isSaturated { return "saturated (an axis at the end of its range)" }
        if !sample.isPlausible { return "implausible sample (not finite, beyond ±16 g or ±2000 °/s)" }
        if repeats >= frozenAfter { return "frozen (\(frozenAfter) or more identical samples in a row)" }
        return nil
    }

    /// Forgets the history (a new run, a device that came back).
    public mutating func reset() {
        last = nil
        repeats = 0
    }
}

/// Puts an IIO buffer's scan timestamps (nanoseconds on the IIO clock, `current_timestamp_clock`) on the owner's
/// scheduler timeline (decision 0096): time = offset + (timestamp − anchor) / 10⁹, where `anchor` is the first
/// timestamp seen and `offset` the smallest `now − (timestamp − anchor) / 10⁹` over the scans read so far at
/// scheduler time `now`. A scan is read after it is stamped, so each such value exceeds the true offset by that
/// scan's read latency, and the smallest is the best bound: the spacing of samples is the kernel's, and their
/// placement is late by at most the lowest latency seen (≤ one poll interval). The offset is lowered only by more
/// than `hysteresis` (small improvements would move times backwards); a newest scan that maps more than
/// `maxLatency` before `now` (the IIO clock stepped back, the device was reopened) re-anchors on it.
/// Working in integer nanoseconds from the anchor keeps a realtime timestamp (~1.8 × 10¹⁸ ns) exact.
public struct IIOTimestampMapping: Sendable, Hashable {
    public static let hysteresis = 0.005
    public static let maxLatency = 0.5
    private var anchor: Int64?
    private var offset = 0.0

    public init() {}

    /// Scheduler times for a batch of timestamps read at `now`.
    public mutating func times(of timestamps: [Int64], readAt now: Double) -> [Double] {
        guard let first = timestamps.first, let newest = timestamps.max() else { return [] }
        if anchor == nil {
            anchor = first
            offset = timestamps.map { now - seconds($0) }.min() ?? now
        } else {
            let best = timestamps.map { now - seconds($0) }.min() ?? offset
            if best < offset - Self.hysteresis { offset = best }
            if now - (offset + seconds(newest)) > Self.maxLatency {
                anchor = first
                offset = timestamps.map { now - seconds($0) }.min() ?? now
            }
        }
        return timestamps.map { offset + seconds($0) }
    }

    public mutating func reset() { anchor = nil }

    private func seconds(_ timestamp: Int64) -> Double {
        let (difference, overflow) = timestamp.subtractingReportingOverflow(anchor ?? timestamp)
        return overflow ? .nan : Double(difference) / 1e9
    }
}

/// One channel type's reading at a time, before checking.
struct InertialReading: Sendable, Hashable {
    var time: Double
    var raw: [Int64]
    /// In the body frame, m/s² or rad/s.
    var value: DeviceVector
    var isSaturated: Bool
}

/// Joins an accelerometer's and a gyroscope's separate streams (two IIO devices, each with its own buffer and
/// timestamps) into 6-axis samples (decision 0096): one sample per gyroscope scan, at its time, with the
/// acceleration interpolated linearly between the accelerometer scans before and after it (the gyro's times because
/// the filter integrates the rate: its timing matters most). A gyro scan later than the newest accelerometer scan
/// waits for the next one (at most `maxWaiting`, then the oldest is dropped and counted in `dropped`: the
/// accelerometer has stopped); one earlier than the first
/// accelerometer scan is dropped. The raw values of a joined sample are the gyro's with the accelerometer scan
/// before it, so a frozen accelerometer and a frozen gyro are both seen as frozen.
struct InertialPairing: Sendable, Hashable {
    static let maxWaiting = 256
    private var previous: InertialReading?
    private var latest: InertialReading?
    private var waiting: [InertialReading] = []
    /// Gyro scans dropped for want of an accelerometer scan after them.
    private(set) var dropped = 0

    /// Samples made ready by new accelerometer and gyro readings (each in time order).
    mutating func add(accelerations: [InertialReading], rates: [InertialReading]) -> [(
        InertialReading, InertialReading
    )] {
        waiting += rates
        if waiting.count > Self.maxWaiting {
            dropped += waiting.count - Self.maxWaiting
            waiting.removeFirst(waiting.count - Self.maxWaiting)
        }
        var joined: [(InertialReading, InertialReading)] = []
        var accelerations = accelerations[...]
        while true {
            // Release every waiting gyro scan the current accelerometer bracket covers.
            while let rate = waiting.first, let latest, rate.time <= latest.time {
                waiting.removeFirst()
                guard let previous, rate.time >= previous.time else {
                    if rate.time == latest.time { joined.append((latest, rate)) }
                    continue
                }
                joined.append((Self.interpolate(previous, latest, at: rate.time), rate))
            }
            guard let next = accelerations.popFirst() else { break }
            if let latest, next.time <= latest.time { continue }
            previous = latest
            latest = next
        }
        return joined
    }

    mutating func reset() {
        previous = nil
        latest = nil
        waiting.removeAll()
    }

    static func interpolate(_ a: InertialReading, _ b: InertialReading, at time: Double) -> InertialReading {
        let span = b.time - a.time
        let f = span > 0 ? (time - a.time) / span : 1
        return InertialReading(
            time: time, raw: a.raw, value: (1 - f) * a.value + f * b.value,
            isSaturated: a.isSaturated || b.isSaturated)
    }
}
