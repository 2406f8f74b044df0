// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/NetworkIP holds symlinks to the library's IP look-up files (Sources/CoreLocationNetwork/IP/…):
// the very code the IP source ships, without the D-Bus and HTTP parts.
let package = Package(
    name: "network-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .systemLibrary(name: "CCoreLocationMaxMindDB", path: "Sources/CCoreLocationMaxMindDB", pkgConfig: "libmaxminddb"),
        .target(name: "NetworkIP", dependencies: ["CCoreLocationMaxMindDB"], path: "Sources/NetworkIP"),
        .executableTarget(name: "NetworkBench", dependencies: ["NetworkIP"], path: "Sources/NetworkBench"),
    ]
)
