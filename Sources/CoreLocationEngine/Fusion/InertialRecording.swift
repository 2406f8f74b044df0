import Foundation

/// The IMU recording format (`.imu.csv`), kept beside a drive's NMEA or GPX so the drive replays through the
/// same filter with the same result (docs/imu-recording-format.md).
///
/// One sample a line, comma-separated, UTF-8, `\n` line ends:
///
///     # corelocation-imu 1
///     # any further comment lines: device, mount, place, licence
///     t,ax,ay,az,gx,gy,gz
///     12.340000,0.012345,-0.004000,9.806650,0.000100,-0.000200,0.001000
///
/// `t` is seconds on the monotonic clock the GNSS recording's times are on (for a GPX or NMEA recording:
/// seconds since 1970-01-01 UTC, so samples and fixes line up); `ax…az` m/s² (specific force, body frame
/// x forward, y left, z up); `gx…gz` rad/s. Six decimals keep 1 µm/s² and 1 µrad/s, below every
/// consumer IMU's noise (BMI160: 0.018 m/s² and 0.0012 rad/s RMS at 100 Hz).
public enum InertialRecording {
    public static let magic = "# corelocation-imu 1"
    public static let header = "t,ax,ay,az,gx,gy,gz"

    public struct DecodingError: Error, Sendable, Hashable {
        /// 1-based line number of the first bad line.
        public var line: Int
        public var message: String

        public init(line: Int, message: String) {
            self.line = line
            self.message = message
        }
    }

    public static func encode(_ samples: [InertialSample], comments: [String] = []) -> String {
        var text = magic + "\n"
        for comment in comments { text += "# " + comment + "\n" }
        text += header + "\n"
        text.reserveCapacity(text.utf8.count + samples.count * 80)
        for s in samples {
            let values = [
                s.time, s.accelerationX, s.accelerationY, s.accelerationZ,
                s.rotationRateX, s.rotationRateY, s.rotationRateZ,
            ]
            text += values.map { String(format: "%.6f", $0) }.joined(separator: ",") + "\n"
        }
        return text
    }

    /// Reads a recording; comment lines (`#`) and the column header are skipped. A line that is not seven finite
    /// numbers is an error naming that line, not a silently dropped sample: a replay must be the recording.
    public static func decode(_ text: String) throws(DecodingError) -> [InertialSample] {
        var samples: [InertialSample] = []
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            let trimmed = line.hasSuffix("\r") ? line.dropLast() : line[...]
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed == Substring(header) { continue }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false)
            let values = fields.compactMap { Double($0) }
            guard fields.count == 7, values.count == 7, values.allSatisfy(\.isFinite) else {
                throw DecodingError(line: number, message: "expected 7 finite numbers t,ax,ay,az,gx,gy,gz")
            }
            samples.append(
                InertialSample(
                    time: values[0], accelerationX: values[1], accelerationY: values[2], accelerationZ: values[3],
                    rotationRateX: values[4], rotationRateY: values[5], rotationRateZ: values[6]))
        }
        return samples
    }
}
