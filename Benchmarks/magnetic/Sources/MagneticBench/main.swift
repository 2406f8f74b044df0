// Times MagneticModel.wmm2025.field over the points of a file and writes the results.
// Usage: MagneticBench POINTS.bin OUT.bin REPETITIONS
//   POINTS.bin: float64 little-endian quadruples (lat°, lon°, height km, decimal year)
//   OUT.bin:    float64 septuples (D°, I°, H, F, X, Y, Z nT) per point
// Prints: "swift-geodesy <points> <median ns per evaluation>".
import Foundation
import CoreLocationGeodesy

let arguments = CommandLine.arguments
guard arguments.count == 4, let repetitions = Int(arguments[3]), repetitions > 0,
    let input = FileManager.default.contents(atPath: arguments[1])
else {
    FileHandle.standardError.write(Data("usage: MagneticBench POINTS.bin OUT.bin REPETITIONS\n".utf8))
    exit(2)
}
let values: [Double] = input.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
let count = values.count / 4
let model = MagneticModel.wmm2025
var output = [Double](repeating: .nan, count: count * 7)
var timings: [Double] = []
for _ in 0..<repetitions {
    let start = DispatchTime.now().uptimeNanoseconds
    for i in 0..<count {
        guard
            let f = try? model.field(
                latitude: values[4 * i], longitude: values[4 * i + 1],
                heightKilometers: values[4 * i + 2], decimalYear: values[4 * i + 3])
        else { continue }
        output[7 * i] = f.declination
        output[7 * i + 1] = f.inclination
        output[7 * i + 2] = f.horizontalIntensity
        output[7 * i + 3] = f.totalIntensity
        output[7 * i + 4] = f.north
        output[7 * i + 5] = f.east
        output[7 * i + 6] = f.down
    }
    timings.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count))
}
timings.sort()
_ = output.withUnsafeBytes { FileManager.default.createFile(atPath: arguments[2], contents: Data($0)) }
print("swift-geodesy \(count) \(String(format: "%.1f", timings[timings.count / 2]))")
