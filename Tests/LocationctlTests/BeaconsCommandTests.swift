import Foundation
import Testing

/// `locationctl beacons --simulate` over the committed demo recording (docs/beacons.md), and its input checks.
@Suite struct BeaconsCommandTests {
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Examples/beacons/demo.jsonl").standardized.path

    @Test func rangesTheDemoOncePerSecondNearestFirst() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl(
            "beacons", "--simulate", Self.demo, "--uuid", "83256B74-78D0-43A4-8269-05F9DC8A44BA", "--format", "json",
            "--duration", "3.5")
        #expect(run.status == 0, "\(run)")
        let results = try run.lines.map { try jsonObject($0) }
        #expect(results.count == 3, "one result a second: \(run.lines)")
        for result in results {
            let beacons = try #require(result["beacons"] as? [[String: Any]])
            // The demo's lobby beacon (minor 1) is at 0.8 m, the desk beacon (minor 2) at 6 m; the Eddystone
            // beacon is never listed.
            #expect(beacons.map { $0["minor"] as? Int } == [1, 2], "\(result)")
            #expect(beacons.map { $0["proximity"] as? String } == ["near", "far"], "\(result)")
            #expect(beacons.allSatisfy { ($0["rssi"] as? Int ?? 0) < 0 })
        }
        let narrowed = try await sandbox.locationctl(
            "beacons", "--simulate", Self.demo, "--uuid", "83256B74-78D0-43A4-8269-05F9DC8A44BA", "--major", "1",
            "--minor", "2", "--duration", "1.5")
        #expect(narrowed.status == 0, "\(narrowed)")
        #expect(narrowed.stdout.contains(" 1 2  far"), "\(narrowed)")
        #expect(!narrowed.stdout.contains(" 1 1 "), "\(narrowed)")
    }

    @Test func badArgumentsAndFilesAreRefused() async throws {
        let sandbox = try Sandbox()
        let badUUID = try await sandbox.locationctl("beacons", "--uuid", "not-a-uuid", "--simulate", Self.demo)
        #expect(badUUID.status != 0 && badUUID.stderr.contains("--uuid must be a UUID"), "\(badUUID)")
        let minorOnly = try await sandbox.locationctl(
            "beacons", "--uuid", "83256B74-78D0-43A4-8269-05F9DC8A44BA", "--minor", "3", "--simulate", Self.demo)
        #expect(minorOnly.status != 0 && minorOnly.stderr.contains("--minor needs --major"), "\(minorOnly)")
        let file = sandbox.directory.appendingPathComponent("bad.jsonl")
        try "{\"t\": 0, \"address\": \"a\", \"rssi\": -60}\n{\"t\": 1, \"rssi\": 3}\n".write(
            to: file, atomically: true, encoding: .utf8)
        let badFile = try await sandbox.locationctl("beacons", "--simulate", file.path, "--duration", "1")
        #expect(badFile.status != 0 && badFile.stderr.contains("line 2"), "\(badFile)")
    }
}
