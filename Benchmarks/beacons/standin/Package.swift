// swift-tools-version:6.0
// A small release build of the beacon modules for Benchmarks/beacons (run.sh links ../../../Sources here).
import PackageDescription

let package = Package(
    name: "beacon-bench",
    dependencies: [.package(url: "https://github.com/apple/swift-log", from: "1.16.2")],
    targets: [
        .target(name: "CoreLocationGeodesy"),
        .target(name: "CoreLocationEngine", dependencies: ["CoreLocationGeodesy"]),
        .target(
            name: "CoreLocationSources",
            dependencies: ["CoreLocationEngine", "CoreLocationGeodesy", .product(name: "Logging", package: "swift-log")]),
        .target(
            name: "CoreLocationDBus", dependencies: [.product(name: "Logging", package: "swift-log")]),
        .target(
            name: "CoreLocationBeacons",
            dependencies: ["CoreLocationDBus", "CoreLocationSources", .product(name: "Logging", package: "swift-log")]),
        .executableTarget(name: "beacon-range", dependencies: ["CoreLocationBeacons", "CoreLocationSources"]),
    ]
)
