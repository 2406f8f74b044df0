// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/NetworkIP holds symlinks to the library's IP look-up files (Sources/CoreLocationNetwork/IP/…): the very
// code the IP source ships (the native MaxMind DB reader, docs/decisions/0060), without the D-Bus and HTTP parts.
// The C peer (bench.c, libmaxminddb) is built by run.sh with the C compiler, outside this package.
let package = Package(
    name: "network-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "NetworkIP", path: "Sources/NetworkIP"),
        .executableTarget(name: "NetworkBench", dependencies: ["NetworkIP"], path: "Sources/NetworkBench"),
    ]
)
