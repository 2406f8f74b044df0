import Foundation
import CoreLocationEngine

/// A sensor's mounting matrix (Linux `Documentation/ABI/testing/sysfs-bus-iio`, "mount_matrix"): the
/// rotation from the sensor chip's axes to the main hardware's (for a hand-held device: x to the
/// right of the screen, y to its top, z out of it). The kernel asks applications to apply it to
/// every sample, `v_main = M · v_chip`, so that when the main hardware is aligned with the local
/// reference frame the rotated sample is too.
///
/// Text form (as the kernel prints it): three rows separated by `;`, three numbers each separated by
/// `,`: `"x1, y1, z1; x2, y2, z2; x3, y3, z3"`, where row i gives main-hardware axis i in chip
/// coordinates (iio-sensor-proxy reads it the same way). The identity means the chip and the
/// main hardware are aligned.
public struct IIOMountMatrix: Sendable, Hashable, CustomStringConvertible {
    /// Rows of M.
    public var rows: (DeviceVector, DeviceVector, DeviceVector)

    public static let identity = IIOMountMatrix(
        rows: (DeviceVector(x: 1, y: 0, z: 0), DeviceVector(x: 0, y: 1, z: 0), DeviceVector(x: 0, y: 0, z: 1)))

    public init(rows: (DeviceVector, DeviceVector, DeviceVector)) {
        self.rows = rows
    }

    /// Parses the kernel's text; nil unless it has exactly 3 × 3 finite numbers whose rows are
    /// orthonormal within 1 % (the ABI calls it "a 3x3 unitary matrix"; drivers and device trees
    /// write small integers or values like 0.7071, so 1 % accepts their rounding and refuses typos
    /// such as a missing minus sign in a row of a rotation by 45°, or a zero row).
    public init?(_ text: String) {
        let rowTexts = text.trimmingCharacters(in: .whitespacesAndNewlines).split(
            separator: ";", omittingEmptySubsequences: false)
        guard rowTexts.count == 3 else { return nil }
        var parsed: [DeviceVector] = []
        for rowText in rowTexts {
            let numbers = rowText.split(separator: ",", omittingEmptySubsequences: false).map {
                Double($0.trimmingCharacters(in: .whitespaces))
            }
            guard numbers.count == 3, let x = numbers[0], let y = numbers[1], let z = numbers[2],
                x.isFinite, y.isFinite, z.isFinite
            else { return nil }
            parsed.append(DeviceVector(x: x, y: y, z: z))
        }
        for i in 0..<3 {
            for j in i..<3 where abs(parsed[i].dot(parsed[j]) - (i == j ? 1 : 0)) > 0.01 { return nil }
        }
        rows = (parsed[0], parsed[1], parsed[2])
    }

    /// `M · v`: a chip-frame sample in the main hardware's frame.
    public func apply(_ v: DeviceVector) -> DeviceVector {
        DeviceVector(x: rows.0.dot(v), y: rows.1.dot(v), z: rows.2.dot(v))
    }

    public var isIdentity: Bool { self == Self.identity }

    public var description: String {
        [rows.0, rows.1, rows.2].map { "\($0.x), \($0.y), \($0.z)" }.joined(separator: "; ")
    }

    public static func == (a: IIOMountMatrix, b: IIOMountMatrix) -> Bool {
        a.rows.0 == b.rows.0 && a.rows.1 == b.rows.1 && a.rows.2 == b.rows.2
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rows.0)
        hasher.combine(rows.1)
        hasher.combine(rows.2)
    }
}

extension IIODevice {
    /// Where a channel type's mounting matrix is, most specific first: the kernel exports it per
    /// channel type (`in_magn_mount_matrix`, `in_accel_mount_matrix`: shared by type), for all input
    /// channels (`in_mount_matrix`: shared by direction) or for the device (`mount_matrix`).
    static func mountMatrixFiles(_ type: String) -> [String] {
        ["in_\(type)_mount_matrix", "in_mount_matrix", "mount_matrix"]
    }

    /// The mounting matrix that applies to channel `type`: the first file of `mountMatrixFiles` that
    /// exists; the identity when none does. A file that exists but cannot be read or parsed gives
    /// the identity too, with `problem` saying so (the caller logs it): the samples are then used
    /// as the chip reports them, as before mounting matrices were read.
    public func mountMatrix(for type: String) -> (matrix: IIOMountMatrix, problem: String?) {
        for file in Self.mountMatrixFiles(type) {
            let full = path + "/" + file
            guard FileManager.default.fileExists(atPath: full) else { continue }
            guard let text = try? String(contentsOfFile: full, encoding: .utf8) else {
                return (.identity, "\(deviceName): cannot read \(file)")
            }
            guard let matrix = IIOMountMatrix(text) else {
                return (.identity, "\(deviceName): \(file) is not a 3 × 3 rotation matrix")
            }
            return (matrix, nil)
        }
        return (.identity, nil)
    }
}
