import CoreLocationEngine
import Foundation

/// A barometer named by URL (decisions 0032, 0033):
/// `barometer:` — the first IIO pressure sensor under the sysfs root (`CORELOCATION_SYSFS_ROOT`, else
/// `/sys`); `barometer:iio:device1` — that device under the root; `barometer:/sys/bus/iio/devices/…`
/// — that directory. `iio-pressure:` is the same. Options after `?`:
/// - `interval=S`: seconds between readings (default 0.5, 2 Hz; 0.05…60);
/// - a venue for floors (`FloorVenue`): `ground=M` (the ground floor's altitude above mean sea level)
///   and `floor-height=M` together, optionally `center=LAT,LON` and `radius=M` together.
///
/// ```
/// barometer:?ground=432.5&floor-height=3.6&center=47.3769,8.5417&radius=60
/// ```
public struct BarometerSpec: Hashable, Sendable, CustomStringConvertible {
    /// nil: the first sensor; a name ("iio:device1"); or an absolute device directory.
    public var device: String?
    public var interval: Double
    public var venue: FloorVenue?

    public init(device: String? = nil, interval: Double = 0.5, venue: FloorVenue? = nil) {
        self.device = device
        self.interval = interval
        self.venue = venue
    }

    public var description: String {
        var options: [String] = []
        if interval != 0.5 { options.append("interval=\(interval)") }
        if let venue {
            options.append("ground=\(venue.groundFloorAltitude)&floor-height=\(venue.floorHeight)")
            if let latitude = venue.latitude, let longitude = venue.longitude, let radius = venue.radius {
                options.append("center=\(latitude),\(longitude)&radius=\(radius)")
            }
        }
        return "barometer:" + (device ?? "") + (options.isEmpty ? "" : "?" + options.joined(separator: "&"))
    }

    /// Parses what follows `barometer:`.
    static func parse(_ rest: String, url: String) throws -> BarometerSpec {
        let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var path = String(parts.first ?? "")
        if path.hasPrefix("//") { path.removeFirst(2) }
        var spec = BarometerSpec(device: path.isEmpty ? nil : path)
        var ground: Double?
        var height: Double?
        var center: (Double, Double)?
        var radius: Double?
        func number(_ key: String, _ value: String) throws -> Double {
            guard let number = Double(value), number.isFinite else {
                throw SourceConfigurationError(.invalidURL, "\(url): \(key) must be a number")
            }
            return number
        }
        for pair in parts.count > 1 ? parts[1].split(separator: "&") : [] {
            let keyValue = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard keyValue.count == 2 else {
                throw SourceConfigurationError(.invalidURL, "\(url): option '\(pair)' is not key=value")
            }
            let (key, value) = (keyValue[0], keyValue[1])
            switch key {
            case "interval":
                let seconds = try number(key, value)
                guard seconds >= 0.05, seconds <= 60 else {
                    throw SourceConfigurationError(.invalidURL, "\(url): interval must be 0.05…60 seconds")
                }
                spec.interval = seconds
            case "ground": ground = try number(key, value)
            case "floor-height": height = try number(key, value)
            case "radius": radius = try number(key, value)
            case "center":
                let numbers = value.split(separator: ",").compactMap { Double($0) }
                guard numbers.count == 2 else {
                    throw SourceConfigurationError(.invalidURL, "\(url): center must be LAT,LON")
                }
                center = (numbers[0], numbers[1])
            default:
                throw SourceConfigurationError(
                    .invalidURL, "\(url): unknown option \(key) (interval, ground, floor-height, center, radius)")
            }
        }
        switch (ground, height) {
        case (nil, nil):
            guard center == nil, radius == nil else {
                throw SourceConfigurationError(.invalidURL, "\(url): center and radius need ground and floor-height")
            }
        case let (ground?, height?):
            let venue = FloorVenue(
                groundFloorAltitude: ground, floorHeight: height, latitude: center?.0, longitude: center?.1,
                radius: radius)
            if let problem = venue.problem { throw SourceConfigurationError(.invalidURL, "\(url): \(problem)") }
            spec.venue = venue
        default:
            throw SourceConfigurationError(.invalidURL, "\(url): a venue needs both ground and floor-height")
        }
        return spec
    }

    /// The sensor this spec names under `sysfsRoot`; nil when there is none.
    public func sensor(sysfsRoot: String) -> IIOPressureDevice? {
        let all = IIOPressureDevice.devices(sysfsRoot: sysfsRoot)
        guard let device else { return all.first }
        if device.hasPrefix("/") {
            let path = device.hasSuffix("/") ? String(device.dropLast()) : device
            if let found = all.first(where: { $0.device.path == path }) { return found }
            // A directory outside the root (a test tree, a symlinked device): look at it alone.
            let parent = (path as NSString).deletingLastPathComponent
            let name = (path as NSString).lastPathComponent
            let files = (try? FileManager.default.contentsOfDirectory(atPath: parent + "/" + name)) ?? []
            guard let channel = files.compactMap(IIOPressureDevice.pressureChannel).sorted().first else { return nil }
            return IIOPressureDevice(device: IIODevice(path: path), channel: channel)
        }
        return all.first { $0.deviceName == device }
    }

    /// `CORELOCATION_SYSFS_ROOT`, else "/sys".
    public static func sysfsRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["CORELOCATION_SYSFS_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? "/sys"
    }
}
