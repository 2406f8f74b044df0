// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/CoreLocationGeodesy is a symlink to ../../../Sources/CoreLocationGeodesy: the very same files the library ships
// (SwiftPM does not allow a target path outside the package root, but it follows the symlink).
let package = Package(
    name: "geodesic-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "CoreLocationGeodesy", path: "Sources/CoreLocationGeodesy"),
        .executableTarget(
            name: "GeodesicBench",
            dependencies: ["CoreLocationGeodesy"],
            path: "Sources/GeodesicBench"
        ),
    ]
)
