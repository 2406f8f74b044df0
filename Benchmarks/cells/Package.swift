// swift-tools-version:6.0
import PackageDescription

// A standalone package so the benchmark builds in release mode without touching the root package.
// Sources/CoreLocationNetwork and Sources/CellTableLib hold symlinks to the library's cell files
// (Sources/CoreLocationNetwork/Cells/…, Sources/CoreLocationCellular/Table/…): the very code the cell source ships.
let package = Package(
    name: "cells-benchmark",
    platforms: [.macOS(.v15)],
    dependencies: [.package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0")],
    targets: [
        .target(name: "CoreLocationNetwork", path: "Sources/CoreLocationNetwork"),
        .target(
            name: "CellTableLib",
            dependencies: ["CoreLocationNetwork", .product(name: "GRDB", package: "GRDB.swift")],
            path: "Sources/CellTableLib"),
        .executableTarget(
            name: "CellsBench", dependencies: ["CellTableLib", "CoreLocationNetwork"], path: "Sources/CellsBench"),
    ]
)
