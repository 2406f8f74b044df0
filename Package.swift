// swift-tools-version:6.0
import PackageDescription

// Layers (see ../shared/ARCHITECTURE.md and docs/decisions/):
//   Geodesy          pure numerics, depends on nothing
//   LocationEngine   pure state machine over plain values; depends on Geodesy only
//   LocationSources  I/O that produces fixes (simulator now; NMEA, gpsd, IIO later)
//   LocationStorage  SQLite (GRDB): authorization decisions, later regions and records
//   CoreLocation     Apple's façade; owns no policy, translates calls into engine inputs
//   locationctl      the command-line tool
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-corelocation",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CoreLocation", targets: ["CoreLocation"]),
        .executable(name: "locationctl", targets: ["locationctl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    ],
    targets: [
        .target(name: "Geodesy", swiftSettings: strictSettings),
        .target(
            name: "LocationEngine",
            dependencies: ["Geodesy"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LocationSources",
            dependencies: [
                "LocationEngine",
                "Geodesy",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "LocationStorage",
            dependencies: [
                "LocationEngine",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "Geocoding",
            dependencies: ["Geodesy", .product(name: "Logging", package: "swift-log")],
            resources: [.copy("Resources/gazetteer.bin")],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CoreLocation",
            dependencies: [
                "Geodesy",
                "Geocoding",
                "LocationEngine",
                "LocationSources",
                "LocationStorage",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "locationctl",
            dependencies: [
                "CoreLocation",
                "Geodesy",
                "LocationEngine",
                "LocationSources",
                "LocationStorage",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // A small app used by the end-to-end tests: it runs a CLLocationManager under RunLoop.main,
        // dispatchMain(), an async main or a secondary thread's run loop and reports where each
        // delegate call arrived.
        .executableTarget(
            name: "CoreLocationProbe",
            dependencies: ["CoreLocation"],
            swiftSettings: strictSettings
        ),
        // libFuzzer targets for the NMEA parser and line splitter (scripts/fuzz-run.sh); a plain build
        // gives executables that replay the files given as arguments.
        .executableTarget(
            name: "NMEAParserFuzz", dependencies: ["LocationSources", "LocationEngine"], swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "NMEAStreamFuzz", dependencies: ["LocationSources", "LocationEngine"], swiftSettings: strictSettings
        ),
        .testTarget(
            name: "GeocodingTests", dependencies: ["Geocoding"], exclude: ["Fixtures"], swiftSettings: strictSettings
        ),
        // libFuzzer target for the gpsd JSON decoder (-DFUZZING); a plain build makes a replayer.
        .executableTarget(
            name: "GPSDJSONFuzz",
            dependencies: ["LocationSources"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "GeodesyTests", dependencies: ["Geodesy"], swiftSettings: strictSettings),
        .testTarget(name: "LocationEngineTests", dependencies: ["LocationEngine"], swiftSettings: strictSettings),
        .testTarget(
            name: "LocationSourcesTests",
            dependencies: ["LocationSources", "LocationEngine"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocationStorageTests",
            dependencies: [
                "LocationStorage",
                "LocationEngine",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoreLocationTests",
            dependencies: [
                "CoreLocation",
                "Geodesy",
                "Geocoding",
                "LocationEngine",
                "LocationSources",
                "LocationStorage",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Real gpsd end to end (gpsd -N on a loopback port reading a loopback NMEA feed); skipped
        // when /usr/sbin/gpsd is absent.
        .testTarget(
            name: "GPSDIntegrationTests",
            dependencies: [
                "CoreLocation",
                "LocationEngine",
                "LocationSources",
                "LocationStorage",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocationctlTests",
            dependencies: ["locationctl", "CoreLocationProbe"],
            swiftSettings: strictSettings
        ),
    ]
)
