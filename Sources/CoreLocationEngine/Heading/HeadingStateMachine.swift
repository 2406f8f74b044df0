import Foundation

/// The heading service of one client as a state machine: `handle(_:at:)` takes an input and the
/// monotonic time in seconds and returns what the shell must do. Pure: no clock, no I/O.
///
/// Rules:
/// - A sample becomes a reading when its heading can be determined; a reading is delivered when it is
///   the first, when the filter is ≤ 0 or NaN (`kCLHeadingFilterNone`), or when the magnetic heading
///   moved by at least the filter since the last delivery.
/// - True heading = magnetic + WMM2025 declination at the last location; −1 without one.
/// - A sample with a `reported` heading (GNSS compass) is delivered as reported, the other reference
///   derived from the declination (−1 without a location); see `accept(_:of:settings:)`.
/// - A stuck sensor (raw reading bit-identical for `stuckInterval` s over at least `stuckSamples`
///   samples), a saturated or implausible field, or an unavailable source fail with `.fail` once per
///   episode, and nothing is delivered until good samples return. Never a made-up heading.
/// - When the accuracy is poor (negative or above `poorAccuracy`), `.requestCalibrationDisplay` is
///   emitted once per poor spell; a good reading or `dismissCalibration` ends the spell.
public struct HeadingStateMachine: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var stuckInterval: Double = 5
        public var stuckSamples: Int = 10
        /// Heading accuracy above which calibration is requested, degrees.
        public var poorAccuracy: Double = 25
        /// Field strengths accepted as real, µT.
        public var plausibleField: ClosedRange<Double> = 1...1000

        public init() {}
    }

    public enum Input: Sendable, Hashable {
        case start
        case stop
        case sample(HeadingSample, HeadingSettings)
        case sourceUnavailable(reason: String)
        case location(HeadingLocation)
        case dismissCalibration
    }

    public enum Action: Sendable, Hashable {
        case powerOn
        case powerOff
        case deliver(HeadingReading)
        case fail(HeadingFailure)
        case requestCalibrationDisplay
    }

    public let configuration: Configuration
    public private(set) var isRunning = false
    /// The last delivered reading.
    public private(set) var lastDelivered: HeadingReading?
    public private(set) var location: HeadingLocation?
    private var failing: HeadingFailure?
    private var calibrationRequested = false
    private var stuckRaw: DeviceVector?
    private var stuckSince = 0.0
    private var stuckCount = 0

    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
    }

    public mutating func handle(_ input: Input, at now: Double) -> [Action] {
        switch input {
        case .start:
            guard !isRunning else { return [] }
            isRunning = true
            failing = nil
            stuckRaw = nil
            return [.powerOn]
        case .stop:
            guard isRunning else { return [] }
            isRunning = false
            return [.powerOff]
        case .location(let location):
            let valid = location.latitude.isFinite && abs(location.latitude) <= 90 && location.longitude.isFinite
            if valid { self.location = location }
            return []
        case .dismissCalibration:
            calibrationRequested = false
            return []
        case .sourceUnavailable(let reason):
            guard isRunning else { return [] }
            stuckRaw = nil
            return fail(.sourceUnavailable(reason: reason))
        case .sample(let sample, let settings):
            guard isRunning else { return [] }
            return accept(sample, settings: settings, at: now)
        }
    }

    private mutating func fail(_ failure: HeadingFailure) -> [Action] {
        if failing == failure { return [] }
        failing = failure
        return [.fail(failure)]
    }

    private mutating func accept(_ sample: HeadingSample, settings: HeadingSettings, at now: Double) -> [Action] {
        if let reported = sample.reported { return accept(reported, of: sample, settings: settings) }
        let strength = sample.field.length
        if sample.isSaturated || !sample.field.isFinite || !configuration.plausibleField.contains(strength) {
            return fail(.implausibleField)
        }
        if sample.raw == stuckRaw {
            stuckCount += 1
            if stuckCount >= configuration.stuckSamples, now - stuckSince >= configuration.stuckInterval {
                return fail(.stuck)
            }
        } else {
            stuckRaw = sample.raw
            stuckSince = now
            stuckCount = 1
            if failing == .stuck { failing = nil }
        }
        guard
            let magnetic = HeadingMath.magneticHeading(
                field: sample.field, gravity: sample.gravity, orientation: settings.orientation
            )
        else { return [] }
        failing = nil

        var actions: [Action] = []
        let accuracy = sample.accuracy.isFinite && sample.accuracy >= 0 ? sample.accuracy : -1
        if accuracy < 0 || accuracy > configuration.poorAccuracy {
            if !calibrationRequested {
                calibrationRequested = true
                actions.append(.requestCalibrationDisplay)
            }
        } else {
            calibrationRequested = false
        }
        var trueHeading = -1.0
        if let location, let declination = HeadingMath.declination(at: location, date: sample.timestamp) {
            trueHeading = HeadingMath.normalized(magnetic + declination)
        }
        let reading = HeadingReading(
            magneticHeading: magnetic, trueHeading: trueHeading, accuracy: accuracy, field: sample.field,
            timestamp: sample.timestamp
        )
        let filter = settings.filter
        if let last = lastDelivered, filter.isFinite, filter > 0,
            HeadingMath.difference(last.magneticHeading, magnetic) < filter
        {
            return actions
        }
        lastDelivered = reading
        actions.append(.deliver(reading))
        return actions
    }

    /// A ready-made heading (GNSS compass): no field checks (a vehicle standing still rightly repeats
    /// one heading, so no stuck detection either) and no calibration request (there is nothing to
    /// calibrate by turning). The filter compares the true heading when known, else the magnetic one.
    private mutating func accept(
        _ reported: ReportedHeading, of sample: HeadingSample, settings: HeadingSettings
    ) -> [Action] {
        guard !reported.isEmpty else { return [] }
        failing = nil
        stuckRaw = nil
        let declination = location.flatMap { HeadingMath.declination(at: $0, date: sample.timestamp) }
        let trueHeading =
            reported.trueHeading
            ?? reported.magneticHeading.flatMap { magnetic in
                declination.map { HeadingMath.normalized(magnetic + $0) }
            } ?? -1
        let magnetic =
            reported.magneticHeading
            ?? reported.trueHeading.flatMap { heading in declination.map { HeadingMath.normalized(heading - $0) } }
            ?? -1
        let accuracy = sample.accuracy.isFinite && sample.accuracy >= 0 ? sample.accuracy : -1
        let reading = HeadingReading(
            magneticHeading: magnetic, trueHeading: trueHeading, accuracy: accuracy, field: sample.field,
            timestamp: sample.timestamp
        )
        let compared = reported.trueHeading != nil ? \HeadingReading.trueHeading : \HeadingReading.magneticHeading
        let filter = settings.filter
        if let last = lastDelivered, filter.isFinite, filter > 0, last[keyPath: compared] >= 0,
            HeadingMath.difference(last[keyPath: compared], reading[keyPath: compared]) < filter
        {
            return []
        }
        lastDelivered = reading
        return [.deliver(reading)]
    }
}
