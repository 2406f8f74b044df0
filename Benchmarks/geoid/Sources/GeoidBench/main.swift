// Times EGM96Geoid.geoidHeight over the points of a file and writes the results.
// Usage: GeoidBench POINTS.bin OUT.bin REPETITIONS
//   POINTS.bin: float64 little-endian pairs (lat°, lon°); OUT.bin: float64 N (m) per point.
// Prints: "swift-geodesy <points> <median ns per look-up> <first-use decode ms>".
import Foundation
import CoreLocationGeodesy

let arguments = CommandLine.arguments
guard arguments.count == 4, let repetitions = Int(arguments[3]), repetitions > 0,
    let input = FileManager.default.contents(atPath: arguments[1])
else {
    FileHandle.standardError.write(Data("usage: GeoidBench POINTS.bin OUT.bin REPETITIONS\n".utf8))
    exit(2)
}
let values: [Double] = input.withUnsafeBytes { Array($0.bindMemory(to: Double.self)) }
let count = values.count / 2
let decodeStart = DispatchTime.now().uptimeNanoseconds
_ = EGM96Geoid.isAvailable
let decodeMs = Double(DispatchTime.now().uptimeNanoseconds - decodeStart) / 1e6
var output = [Double](repeating: .nan, count: count)
var timings: [Double] = []
for _ in 0..<repetitions {
    let start = DispatchTime.now().uptimeNanoseconds
    for i in 0..<count {
        output[i] = EGM96Geoid.geoidHeight(latitude: values[2 * i], longitude: values[2 * i + 1])
    }
    timings.append(Double(DispatchTime.now().uptimeNanoseconds - start) / Double(count))
}
timings.sort()
_ = output.withUnsafeBytes { FileManager.default.createFile(atPath: arguments[2], contents: Data($0)) }
print(
    "swift-geodesy \(count) \(String(format: "%.1f", timings[timings.count / 2])) \(String(format: "%.1f", decodeMs))")
