// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/CoreLocationGeodesy and Sources/CoreLocationEngine are symlinks to the library's own modules: the very
// engine the library ships, driven through its `EngineDriver` test double.
let package = Package(
    name: "energy-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "CoreLocationGeodesy", path: "Sources/CoreLocationGeodesy"),
        .target(name: "CoreLocationEngine", dependencies: ["CoreLocationGeodesy"], path: "Sources/CoreLocationEngine"),
        .executableTarget(name: "EnergyBench", dependencies: ["CoreLocationEngine", "CoreLocationGeodesy"], path: "Sources/EnergyBench"),
    ]
)
