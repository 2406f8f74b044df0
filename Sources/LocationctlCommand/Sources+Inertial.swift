import CoreLocationSources
import Foundation

/// The inertial unit (IIO accelerometer + gyroscope, decision 0096) for `locationctl sources`: found as the fused
/// location finds it, described without powering it (nothing is written or read from its buffer).
struct InertialSourceRow: Encodable {
    var kind = "inertial"
    /// E.g. "iio:device0 (bmi160)".
    var devices: String
    /// "buffered" or "polled".
    var mode: String
    /// The rate a run asks for, Hz.
    var rate: Double
    /// Why polled, when polled.
    var note: String?

    var text: String {
        "inertial: \(devices) — \(mode), \(IIOBufferedDeviceFormat.hertz(rate)) Hz" + (note.map { " (\($0))" } ?? "")
    }

    static func inspect(environment: [String: String]) -> InertialSourceRow? {
        guard let source = IIOInertialSource.discover(environment: environment, scheduler: DispatchScheduler()) else {
            return nil
        }
        var note: String?
        if case .polled(let reason) = source.mode { note = reason }
        return InertialSourceRow(
            devices: source.name, mode: source.mode.description, rate: source.plannedRate, note: note)
    }
}

enum IIOBufferedDeviceFormat {
    /// "100", "12.5".
    static func hertz(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(format: "%.1f", value)
    }
}
