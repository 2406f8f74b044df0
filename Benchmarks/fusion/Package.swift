// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/CoreLocationEngine and Sources/CoreLocationGeodesy are symlinks to the library's own files.
let package = Package(
    name: "fusion-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "CoreLocationGeodesy", path: "Sources/CoreLocationGeodesy"),
        .target(name: "CoreLocationEngine", dependencies: ["CoreLocationGeodesy"], path: "Sources/CoreLocationEngine"),
        .executableTarget(name: "FusionBench", dependencies: ["CoreLocationEngine"], path: "Sources/FusionBench"),
    ]
)
