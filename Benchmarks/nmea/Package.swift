// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/NMEACore and Sources/CoreLocationEngine hold symlinks to the very files the library ships
// (the NMEA parser, splitter and epoch assembler; the engine's Fix), without the I/O parts that need
// swift-log; Sources/CoreLocationGeodesy is a symlink to the library's whole Geodesy module (the epoch
// assembler uses its geoid).
let package = Package(
    name: "nmea-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "CoreLocationEngine", path: "Sources/CoreLocationEngine"),
        .target(name: "CoreLocationGeodesy", path: "Sources/CoreLocationGeodesy"),
        .target(name: "NMEACore", dependencies: ["CoreLocationEngine", "CoreLocationGeodesy"], path: "Sources/NMEACore"),
        .executableTarget(name: "NMEABench", dependencies: ["NMEACore", "CoreLocationEngine"], path: "Sources/NMEABench"),
        .executableTarget(
            name: "NMEADecode", dependencies: ["NMEACore", "CoreLocationEngine", "CoreLocationGeodesy"],
            path: "Sources/NMEADecode"),
    ]
)
