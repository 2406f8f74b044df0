// swift-tools-version:6.0
import PackageDescription

// A standalone package so the reporter's policy runs over many tracks in seconds, without the root package
// (its queue needs GRDB; the policy does not). Sources/* are symlinks to the library's own files:
// CoreLocationReporting is the Policy folder alone.
let package = Package(
    name: "reporter-policy-benchmark",
    platforms: [.macOS(.v15)],
    targets: [
        .target(name: "CoreLocationGeodesy", path: "Sources/CoreLocationGeodesy"),
        .target(name: "CoreLocationEngine", dependencies: ["CoreLocationGeodesy"], path: "Sources/CoreLocationEngine"),
        .target(
            name: "CoreLocationReporting", dependencies: ["CoreLocationEngine", "CoreLocationGeodesy"],
            path: "Sources/CoreLocationReporting"),
        .executableTarget(
            name: "ReportPolicyRun", dependencies: ["CoreLocationReporting", "CoreLocationEngine"],
            path: "Sources/ReportPolicyRun"),
    ]
)
