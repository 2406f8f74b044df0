import CoreLocationSources
import Foundation

extension SourceReport {
    /// A barometer: its device and one reading, checked as the source checks it.
    static func inspectBarometer(_ spec: BarometerSpec, url: String) -> SourceReport {
        let root = BarometerSpec.sysfsRoot()
        guard let sensor = spec.sensor(sysfsRoot: root) else {
            return SourceReport(
                url: url, kind: "barometer", reachable: false,
                note: "no IIO pressure sensor \(spec.device.map { "\($0) " } ?? "")under \(root)/bus/iio/devices")
        }
        var check = PressureCheck(range: sensor.range)
        do {
            let pressure = try sensor.readHectopascals()
            let problem = check.problem(with: pressure)
            return SourceReport(
                url: url, kind: "barometer", reachable: problem == nil, devices: [sensor.label],
                pressure: pressure.isFinite ? pressure : nil, note: problem)
        } catch {
            return SourceReport(url: url, kind: "barometer", reachable: false, devices: [sensor.label], note: error.message)
        }
    }

    var barometerLines: [String] {
        var lines: [String] = []
        if let device = devices?.first { lines.append("  device: \(device)") }
        if let pressure { lines.append(String(format: "  pressure: %.2f hPa", pressure)) }
        return lines
    }
}
