// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/Geodesy is a symlink to ../../../Sources/Geodesy: the very files the library ships.
let package = Package(
    name: "magnetic-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "Geodesy", path: "Sources/Geodesy"),
        .executableTarget(name: "MagneticBench", dependencies: ["Geodesy"], path: "Sources/MagneticBench"),
    ]
)
