// swift-tools-version:6.0
import PackageDescription

// A standalone package so the urban-track scorer builds (release) in a minute without the root package.
// Sources/CoreLocationGeodesy and Sources/CoreLocationEngine are symlinks to the library's own modules.
let package = Package(
    name: "urban-regions-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "CoreLocationGeodesy", path: "Sources/CoreLocationGeodesy"),
        .target(name: "CoreLocationEngine", dependencies: ["CoreLocationGeodesy"], path: "Sources/CoreLocationEngine"),
        .executableTarget(
            name: "UrbanRegions", dependencies: ["CoreLocationEngine", "CoreLocationGeodesy"], path: "Sources/UrbanRegions"),
    ]
)
