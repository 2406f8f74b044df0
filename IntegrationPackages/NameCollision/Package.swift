// swift-tools-version:6.0
import PackageDescription

// A client package that has its own targets named like common geodesy and location packages
// (`Geodesy`, `Geocoding`, `LocationEngine`, …) and depends on swift-corelocation. SwiftPM requires
// target names to be unique across the whole graph, so this builds only while the library's
// internal modules keep names that cannot collide. `.ci/run` builds it (scripts/check-name-collision.sh).
let package = Package(
    name: "name-collision-client",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "swift-corelocation", path: "../..")],
    targets: [
        .target(name: "Geodesy"),
        .target(name: "Geocoding"),
        .target(name: "LocationEngine"),
        .target(name: "LocationSources"),
        .target(name: "LocationStorage"),
        .executableTarget(
            name: "NameCollisionApp",
            dependencies: [
                "Geodesy", "Geocoding", "LocationEngine", "LocationSources", "LocationStorage",
                .product(name: "CoreLocation", package: "swift-corelocation"),
            ]
        ),
    ]
)
