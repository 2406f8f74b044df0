// swift-tools-version:6.0
import PackageDescription

// Layers, bottom to top: a target depends only on targets listed before it (docs/decisions/0066 for the picture and why,
// 0009 for the names). Apps import only `CoreLocation`; the internal modules carry the `CoreLocation` prefix because
// SwiftPM needs target names unique across a whole package graph, and an app's own `Geodesy` or `Geocoding` target
// must not collide with ours (IntegrationPackages/NameCollision proves it).
//   CoreLocationGeodesy         pure numerics, depends on nothing (not even Foundation): geodesics, WMM, EGM96 geoid
//   CoreLocationEngine          the state machine over plain values, clock injected, no I/O; needs Geodesy only
//   CoreLocationDBus            the D-Bus protocol in Swift, for the sources that speak to system services
//   CoreLocationSources         sources with no bus: simulator, NMEA, gpsd, IIO magnetometer and barometer; schedulers
//   CoreLocationNetwork         IP, Wi-Fi, GeoClue          CoreLocationCellular   ModemManager, cell table
//   CoreLocationBeacons         BLE beacons through BlueZ   CoreLocationStorage    SQLite (GRDB)
//   CoreLocationGeocoding       the gazetteer (a resource) and Nominatim
//   CoreLocationReporting       the position reporter      CoreLocationDaemonProtocol   locationd's wire
//   CoreLocationRuntime         where Core Location runs (in this process or in locationd), behind one interface;
//                               authorization policy, identity, prompters, the one composition root
//   CoreLocation                Apple's names only: forwards to the runtime's interface, holds no policy
//   LocationdCommand, LocationctlCommand   the system service (runtime, never the façade) and the command-line tool
//   locationd, locationctl, corelocation   their programs: one each (thin mains), and one multi-call binary that is
//                                          either by the name it is called under, the one the package installs (0101)
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "swift-corelocation",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "CoreLocation", targets: ["CoreLocation"]),
        .executable(name: "locationctl", targets: ["locationctl"]),
        .executable(name: "locationd", targets: ["locationd"]),
        // locationd and locationctl in one binary, by the name it is called under (docs/decisions/0101).
        .executable(name: "corelocation", targets: ["corelocation"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Builds the DocC catalog: `swift package generate-documentation --target CoreLocation` (.ci/run).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // HTTP clients: the Wi-Fi source's geolocate requests (CoreLocationNetwork) and the reporter's
        // uploads (OwnTracks HTTP, Traccar OsmAnd; CoreLocationReporting, docs/decisions/0023).
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // The EGM96 geoid is compiled in (EGM96Geoid+Data*.swift), not a resource: every fix needs it, and this module
        // needs no Foundation (docs/decisions/0084).
        .target(name: "CoreLocationGeodesy", swiftSettings: strictSettings),
        .target(
            name: "CoreLocationEngine",
            dependencies: ["CoreLocationGeodesy"],
            swiftSettings: strictSettings
        ),
        .target(
            name: "CoreLocationSources",
            dependencies: [
                "CoreLocationEngine",
                "CoreLocationGeodesy",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The project's D-Bus layer, the protocol spoken natively in Swift (docs/decisions/0024, 0058): NetworkManager,
        // GeoClue, BlueZ, ModemManager. No C library and no header: it builds with the Swift toolchain alone.
        .target(
            name: "CoreLocationDBus",
            dependencies: [.product(name: "Logging", package: "swift-log")],
            swiftSettings: strictSettings
        ),
        // A real gpsd and the loopback NMEA feed it reads, for GPSDIntegrationTests and LocationdTests.
        .target(name: "CoreLocationGPSDTestSupport", swiftSettings: strictSettings),
        // A private dbus-daemon and python-dbusmock services for tests (used only by test targets).
        .target(name: "CoreLocationDBusTestSupport", dependencies: ["CoreLocationDBus", "CoreLocationGPSDTestSupport"], swiftSettings: strictSettings),
        // Network positioning (issue 14): IP (MaxMind DB files, read natively: docs/decisions/0060), Wi-Fi
        // (NetworkManager + an Ichnaea geolocate service), GeoClue. A module of its own so that only the programs that
        // run these sources (locationd, locationctl) link AsyncHTTPClient and swift-nio; apps get them through
        // locationd (docs/decisions/0038).
        .target(
            name: "CoreLocationNetwork",
            dependencies: [
                "CoreLocationDBus", "CoreLocationEngine", "CoreLocationSources",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Cell positioning and the modem's GNSS (issue 18): the offline cell table (GRDB, OpenCelliD's CSV layout) and
        // ModemManager over D-Bus (docs/decisions/0034, 0035).
        .target(
            name: "CoreLocationCellular",
            dependencies: [
                "CoreLocationDBus", "CoreLocationEngine", "CoreLocationGeodesy", "CoreLocationNetwork",
                "CoreLocationSources",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // Beacons (issue 13, docs/decisions/0029): frame decoders, the ranging state machine, BlueZ LE scanning over
        // CoreLocationDBus, recorded-advert replay. The runtime and the façade link it (ranging runs in the app's
        // process, 0050); no C library comes with it (0058).
        .target(
            name: "CoreLocationBeacons",
            dependencies: [
                "CoreLocationDBus", "CoreLocationSources", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // What must survive a restart, in SQLite: decisions, regions, monitor records, launch targets, pending events.
        .target(
            name: "CoreLocationStorage",
            dependencies: [
                "CoreLocationEngine",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // CLGeocoder's backends: the offline gazetteer, a SwiftPM resource loaded on first use (only geocoding needs
        // it, so a program without its bundle loses geocoding alone: docs/decisions/0084), and Nominatim.
        .target(
            name: "CoreLocationGeocoding",
            dependencies: ["CoreLocationGeodesy", .product(name: "Logging", package: "swift-log")],
            resources: [.copy("Resources/gazetteer.bin")],
            swiftSettings: strictSettings
        ),
        // The location reporter (issue 12): upload policies, the durable queue, the uploaders
        // (docs/decisions/0022, 0023).
        .target(
            name: "CoreLocationReporting",
            dependencies: [
                "CoreLocationEngine",
                "CoreLocationGeodesy",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strictSettings
        ),
        // The locationd wire protocol: frames, hello, requests and events (docs/locationd-protocol.md), in its own
        // types with their coding written out (decision 0068): it depends on no engine type.
        .target(
            name: "CoreLocationDaemonProtocol",
            swiftSettings: strictSettings
        ),
        // Where Core Location runs: the engine in this process or locationd's, behind one interface, with the
        // authorization policy, identity, prompters, heading and beacon runtimes and the one composition root.
        .target(
            name: "CoreLocationRuntime",
            dependencies: [
                "CoreLocationBeacons",
                "CoreLocationDaemonProtocol",
                "CoreLocationEngine",
                "CoreLocationSources",
                "CoreLocationStorage",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The product: Apple's names, signatures and behaviour, forwarding to CoreLocationRuntime's one interface.
        .target(
            name: "CoreLocation",
            dependencies: [
                "CoreLocationBeacons",
                "CoreLocationDaemonProtocol",
                "CoreLocationGeodesy",
                "CoreLocationGeocoding",
                "CoreLocationEngine",
                "CoreLocationRuntime",
                "CoreLocationSources",
                "CoreLocationStorage",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The command-line tool: the façade and the runtime's interface, with every source module its options name.
        // A library, so that one binary can hold it and the daemon (docs/decisions/0101).
        .target(
            name: "LocationctlCommand",
            dependencies: [
                "CoreLocation",
                "CoreLocationRuntime",
                "CoreLocationBeacons",
                "CoreLocationNetwork",
                "CoreLocationCellular",
                "CoreLocationDBus",
                "CoreLocationGeodesy",
                "CoreLocationEngine",
                "CoreLocationSources",
                "CoreLocationStorage",
                "CoreLocationGeocoding",
                "CoreLocationReporting",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The system service: an engine host per app over shared sources, through the runtime, never the façade
        // (docs/decisions/0010, 0011, 0066). A library, so that one binary can hold it and the tool (0101).
        .target(
            name: "LocationdCommand",
            dependencies: [
                "CoreLocationBeacons",
                "CoreLocationCellular",
                "CoreLocationDaemonProtocol",
                // The GeoClue2 service (decision 0074).
                "CoreLocationDBus",
                "CoreLocationEngine",
                // Calendar arithmetic for the gpsd front door's times (decision 0091).
                "CoreLocationGeodesy",
                "CoreLocationNetwork",
                "CoreLocationRuntime",
                "CoreLocationSources",
                "CoreLocationStorage",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        // The programs (docs/decisions/0101): `locationd` and `locationctl` alone, what the tests, the README and
        // `swift run` use, and `corelocation`, both in one binary, which the package installs under both names as
        // hard links. The only `@main`s (top-level code) are here: each library holds its entry point, never one.
        .executableTarget(name: "locationd", dependencies: ["LocationdCommand"], swiftSettings: strictSettings),
        .executableTarget(name: "locationctl", dependencies: ["LocationctlCommand"], swiftSettings: strictSettings),
        .executableTarget(
            name: "corelocation",
            dependencies: ["LocationdCommand", "LocationctlCommand"],
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
        // A client that checks Bundle.main for its usage description before asking, as popular
        // wrappers do; the end-to-end tests run it with its Info.plist in each layout (issue 19).
        .executableTarget(
            name: "CoreLocationBundleProbe",
            dependencies: ["CoreLocation"],
            swiftSettings: strictSettings
        ),
        // A long-running app for the locationd tests: updates, requestLocation or a region, with times.
        .executableTarget(
            name: "CoreLocationAppProbe",
            dependencies: ["CoreLocation"],
            swiftSettings: strictSettings
        ),
        // libFuzzer targets (scripts/fuzz.sh, docs/decisions/0021): NMEA parser, NMEA line splitter, gpsd JSON, GPX,
        // beacon frames, D-Bus messages, MaxMind files. Their shared entry point (CoreLocationFuzzSupport) runs libFuzzer's driver in a
        // `-sanitize=fuzzer -DFUZZING` build; a plain build gives executables that replay the files given.
        .target(name: "CoreLocationFuzzSupport", swiftSettings: strictSettings),
        .executableTarget(
            name: "CoreLocationFuzzNMEAParser",
            dependencies: ["CoreLocationFuzzSupport", "CoreLocationSources", "CoreLocationEngine"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "CoreLocationFuzzNMEAStream",
            dependencies: ["CoreLocationFuzzSupport", "CoreLocationSources", "CoreLocationEngine"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoreLocationGeocodingTests", dependencies: ["CoreLocationGeocoding"], exclude: ["Fixtures"], swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "CoreLocationFuzzGPSDJSON",
            dependencies: ["CoreLocationFuzzSupport", "CoreLocationSources"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "CoreLocationFuzzBeaconFrames",
            dependencies: ["CoreLocationFuzzSupport", "CoreLocationBeacons"],
            swiftSettings: strictSettings
        ),
        // The native D-Bus message decoder (docs/decisions/0058).
        .executableTarget(
            name: "CoreLocationFuzzDBusMessage",
            dependencies: ["CoreLocationFuzzSupport", "CoreLocationDBus"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "CoreLocationFuzzGPX",
            dependencies: ["CoreLocationFuzzSupport", "CoreLocationSources"],
            swiftSettings: strictSettings
        ),
        // locationd's frame and message decoders, both directions (docs/decisions/0068).
        .executableTarget(
            name: "CoreLocationFuzzDaemonFrames",
            dependencies: ["CoreLocationFuzzSupport", "CoreLocationDaemonProtocol"],
            swiftSettings: strictSettings
        ),
        // The MaxMind DB reader: open from bytes, look-ups and whole records (docs/decisions/0060).
        .executableTarget(
            name: "CoreLocationFuzzMaxMind",
            dependencies: ["CoreLocationFuzzSupport", "CoreLocationNetwork"],
            swiftSettings: strictSettings
        ),
        // ModemManager's 3GPP location string and the cell table's CSV rows (issue 37).
        .executableTarget(
            name: "CoreLocationFuzzModem3GPP",
            dependencies: ["CoreLocationFuzzSupport", "CoreLocationNetwork"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "CoreLocationFuzzCellCSV",
            dependencies: ["CoreLocationFuzzSupport", "CoreLocationCellular", "CoreLocationNetwork"],
            swiftSettings: strictSettings
        ),
        .testTarget(name: "CoreLocationGeodesyTests", dependencies: ["CoreLocationGeodesy"], swiftSettings: strictSettings),
        .testTarget(name: "CoreLocationEngineTests", dependencies: ["CoreLocationEngine"], swiftSettings: strictSettings),
        .testTarget(
            name: "CoreLocationSourcesTests",
            dependencies: ["CoreLocationSources", "CoreLocationEngine", "CoreLocationGPSDTestSupport"],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoreLocationStorageTests",
            dependencies: [
                "CoreLocationStorage",
                "CoreLocationEngine",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoreLocationTests",
            dependencies: [
                "CoreLocation",
                "CoreLocationRuntime",
                "CoreLocationBeacons",
                "CoreLocationGPSDTestSupport",
                "CoreLocationGeodesy",
                "CoreLocationGeocoding",
                "CoreLocationEngine",
                "CoreLocationSources",
                "CoreLocationStorage",
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
                "CoreLocationRuntime",
                "CoreLocationGPSDTestSupport",
                "CoreLocationEngine",
                "CoreLocationSources",
                "CoreLocationStorage",
                .product(name: "Logging", package: "swift-log"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        // Real locationd processes on temporary sockets and databases: faults and the façade through it.
        .testTarget(
            name: "LocationdTests",
            dependencies: [
                // LocationdCommand: the daemon's code, @testable; the programs, run as processes.
                "LocationdCommand", "locationd", "locationctl", "corelocation",
                "CoreLocationProbe", "CoreLocationAppProbe", "CoreLocationDaemonProtocol",
                "CoreLocationEngine", "CoreLocationGPSDTestSupport",
                // LocationctlBothWaysTests: BlueZ (python-dbusmock) on a private bus for `locationctl beacons`.
                "CoreLocationDBusTestSupport",
                // DeliveryJSONTests: the seeded generator.
                "CoreLocationSources",
                // ReporterRelaunchTests: the reporter's queue, read after its process was killed.
                "CoreLocationReporting",
                // LoopWriterTests: real channels on a real event loop.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            // Peers/: the GDBus client and GeoClue agent GeoClueServiceTests run on the private bus.
            exclude: ["Peers"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoreLocationDBusTests",
            dependencies: ["CoreLocationDBus", "CoreLocationDBusTestSupport", "CoreLocationGPSDTestSupport"],
            // Fixtures/: messages made by GLib and libdbus (make-fixtures.py), the external oracles of the marshaller;
            // Peers/: a GLib peer the service tests run on the private bus.
            exclude: ["Fixtures", "Peers"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoreLocationBeaconsTests",
            dependencies: [
                "CoreLocationBeacons", "CoreLocationDBus", "CoreLocationDBusTestSupport", "CoreLocationSources",
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoreLocationNetworkTests",
            dependencies: [
                "CoreLocationGPSDTestSupport",
                "CoreLocationNetwork", "CoreLocationDBus", "CoreLocationDBusTestSupport", "CoreLocationEngine",
                "CoreLocationSources",
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoreLocationCellularTests",
            dependencies: [
                "CoreLocationGPSDTestSupport",
                "CoreLocationCellular", "CoreLocationNetwork", "CoreLocationDBus", "CoreLocationDBusTestSupport",
                "CoreLocationEngine", "CoreLocationSources",
            ],
            exclude: ["Fixtures"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "CoreLocationReportingTests",
            dependencies: [
                "CoreLocationGPSDTestSupport",
                "CoreLocationReporting",
                "CoreLocationEngine",
                "CoreLocationGeodesy",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            // The receiving test server (python3), started by the upload tests.
            exclude: ["Server"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "LocationctlTests",
            dependencies: [
                "CoreLocationGPSDTestSupport","locationctl", "CoreLocationProbe", "CoreLocationBundleProbe",
                "CoreLocationDBus", "CoreLocationDBusTestSupport",
                // FusedTrackTests: the seeded IMU synthesiser writes the drive's .imu.csv.
                "CoreLocationEngine"],
            swiftSettings: strictSettings
        ),
    ]
)
