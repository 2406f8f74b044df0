// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/CoreLocationGeodesy is a symlink to ../../../Sources/CoreLocationGeodesy: the very files the library ships.
let package = Package(
    name: "geoid-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "CoreLocationGeodesy", path: "Sources/CoreLocationGeodesy"),
        .executableTarget(name: "GeoidBench", dependencies: ["CoreLocationGeodesy"], path: "Sources/GeoidBench"),
    ]
)
