// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/CoreLocationGeocoding is a symlink to ../../../Sources/CoreLocationGeocoding: the very files the library ships.
let package = Package(
    name: "geocoding-benchmark",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        .target(
            name: "CoreLocationGeocoding",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            path: "Sources/CoreLocationGeocoding",
            resources: [.copy("Resources/gazetteer.bin")]
        ),
        .executableTarget(name: "GeocodingBench", dependencies: ["CoreLocationGeocoding"], path: "Sources/GeocodingBench"),
    ]
)
