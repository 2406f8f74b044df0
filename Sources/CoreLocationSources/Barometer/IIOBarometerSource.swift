import CoreLocationEngine
import Foundation
import Logging
import Synchronization

/// Pressure from a Linux IIO barometer (`IIOPressureDevice`), polled on a scheduler while the engine
/// has it on — that is, while some client wants locations (the engine powers barometers then;
/// decision 0032). Off, nothing reads the sensor, so its driver's runtime power management
/// (bmp280, st_pressure, dps310 autosuspend after a read) lets it sleep.
///
/// Rate: `interval`, default 0.5 s (2 Hz). Floors need the barometer within a second or two of a
/// change (a lift climbs a storey in 2–3 s); the sensors' noise at their default oversampling
/// (≈ 0.03 hPa, 0.25 m) is averaged by the filter over a few samples; faster polling only costs
/// conversions (a BMP280 in forced mode takes up to 44 ms per read at ×16 oversampling).
///
/// Bad readings (`PressureCheck`: not a number, ≤ 0, outside the chip's range, stuck) and an
/// unreadable device become `.unavailable(reason:)` — shown by `locationctl sources` — never a
/// pressure.
public final class IIOBarometerSource: LocationSource {
    public let sensor: IIOPressureDevice
    public let interval: Double
    public let descriptor: SourceDescriptor
    /// The building whose floors to count, from the URL (`BarometerSpec`); the runtime puts it into
    /// the engine's configuration.
    public let venue: FloorVenue?

    private struct State {
        var check: PressureCheck
        var lastProblem: String?
    }

    private let scheduler: any Scheduler
    private let logger: Logger
    private let state: Mutex<State>
    private let sampling: SamplingLoop<SourceEvent>

    public init(
        sensor: IIOPressureDevice, interval: Double = 0.5, venue: FloorVenue? = nil, scheduler: any Scheduler,
        logger: Logger = Logger(label: "corelocation.barometer")
    ) {
        self.sensor = sensor
        self.venue = venue
        self.interval = interval.isFinite && interval > 0 ? interval : 0.5
        sampling = SamplingLoop(scheduler: scheduler, interval: self.interval)
        self.scheduler = scheduler
        self.logger = logger
        // Barometers cost little (a few µA) and give no position: expectedAccuracy is never used to choose
        // them; finite (10⁹ m), because descriptors travel as JSON (status, the daemon's protocol).
        descriptor = SourceDescriptor(
            id: SourceID("barometer:\(sensor.device.path)"), kind: SourceDescriptor.barometerKind,
            expectedAccuracy: 1e9, powerCost: 0.01, isSimulated: false)
        state = Mutex(State(check: PressureCheck(range: sensor.range)))
    }

    /// The reading now, unchecked, for `locationctl sources`.
    public func currentPressure() -> Result<Double, IIOError> {
        do { return .success(try sensor.readHectopascals()) } catch { return .failure(error) }
    }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        state.withLock { $0.check = PressureCheck(range: sensor.range) }
        sampling.start(handler) { [weak self] in self?.readEvent() }
    }

    public func stop() { sampling.stop() }

    /// One reading, checked, as an event (the poll loop's step; tests call it directly).
    func readEvent() -> SourceEvent {
        let problem: String?
        var value = 0.0
        do {
            value = try sensor.readHectopascals()
            problem = state.withLock { $0.check.problem(with: value) }
        } catch {
            problem = error.message
        }
        let isNew = state.withLock { state in
            defer { state.lastProblem = problem }
            return problem != nil && state.lastProblem != problem
        }
        if let problem {
            if isNew { logger.warning("Barometer reading rejected", metadata: ["device": "\(sensor.label)", "problem": "\(problem)"]) }
            return .unavailable(reason: "\(sensor.label): \(problem)")
        }
        return .pressure(PressureSample(hectopascals: value, timestamp: scheduler.wallNow, device: sensor.label))
    }
}

extension IIOBarometerSource {
    /// The first venue a barometer among `sources` was configured with (decision 0033).
    public static func venue(in sources: [any LocationSource]) -> FloorVenue? {
        sources.lazy.compactMap { ($0 as? IIOBarometerSource)?.venue }.first
    }
}
