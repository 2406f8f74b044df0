// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/Geodesy is a symlink to ../../../Sources/Geodesy: the very same files the library ships
// (SwiftPM does not allow a target path outside the package root, but it follows the symlink).
let package = Package(
    name: "geodesic-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "Geodesy", path: "Sources/Geodesy"),
        .executableTarget(
            name: "GeodesicBench",
            dependencies: ["Geodesy"],
            path: "Sources/GeodesicBench"
        ),
    ]
)
