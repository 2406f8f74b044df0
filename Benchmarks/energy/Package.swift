// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/Geodesy and Sources/LocationEngine are symlinks to the library's own modules: the very
// engine the library ships, driven through its `EngineDriver` test double.
let package = Package(
    name: "energy-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "Geodesy", path: "Sources/Geodesy"),
        .target(name: "LocationEngine", dependencies: ["Geodesy"], path: "Sources/LocationEngine"),
        .executableTarget(name: "EnergyBench", dependencies: ["LocationEngine", "Geodesy"], path: "Sources/EnergyBench"),
    ]
)
