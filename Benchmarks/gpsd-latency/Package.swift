// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// It uses only the public API: CLLocationManager with the source named in sources.conf.
let package = Package(
    name: "gpsd-latency-benchmark",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "swift-corelocation", path: "../..")],
    targets: [
        .executableTarget(
            name: "GPSDLatency",
            dependencies: [.product(name: "CoreLocation", package: "swift-corelocation")],
            path: "Sources/GPSDLatency"
        ),
    ]
)
