// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
//   CoreLocationDBus   a symlink to the library's D-Bus layer: the native protocol (docs/decisions/0058)
//   LibdbusDBus        the libdbus-based layer it replaced: its libdbus files as they were at 43aa3e6 (git history),
//                      plus a signal emit; the pure-Swift files both layers share unchanged (values, match rules,
//                      the standard interfaces, the object tree, subscriptions, the error) are symlinks to the library's
//   CCoreLocationDBus  that layer's libdbus headers (Debian libdbus-1-dev): needed only here
let package = Package(
    name: "dbus-benchmark",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "https://github.com/apple/swift-log", from: "1.16.2")],
    targets: [
        .target(name: "CoreLocationDBus", dependencies: [.product(name: "Logging", package: "swift-log")]),
        .systemLibrary(name: "CCoreLocationDBus", pkgConfig: "dbus-1", providers: [.apt(["libdbus-1-dev"])]),
        .target(
            name: "LibdbusDBus", dependencies: ["CCoreLocationDBus", .product(name: "Logging", package: "swift-log")]),
        .executableTarget(name: "DBusBench", dependencies: ["CoreLocationDBus", "LibdbusDBus"]),
    ]
)
