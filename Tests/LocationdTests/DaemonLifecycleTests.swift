import CoreLocationDaemonProtocol
import Foundation
import Testing

/// Starting, refusing, recovering and restarting a real daemon process.
@Suite(.serialized) struct DaemonLifecycleTests {
    @Test func staleSocketFileIsReplaced() async throws {
        let harness = try DaemonHarness()
        // A socket file nobody listens on, as a crashed daemon leaves.
        try await harness.start()
        await harness.kill()
        #expect(FileManager.default.fileExists(atPath: harness.socket))
        try await harness.start()
        #expect(await harness.logContains("Removing a stale socket file"))
    }

    @Test func secondDaemonRefusesAndSaysWhy() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let second = try await harness.run("locationd", ["--socket", harness.socket, "--database", harness.directory + "/2.sqlite"])
        #expect(second.status == 75, "\(second)")
        #expect(second.stderr.contains("another locationd is listening on \(harness.socket)"), "\(second)")
    }

    @Test func corruptDatabaseIsMovedAsideNotLost() async throws {
        let harness = try DaemonHarness()
        try Data("this is not sqlite, but somebody's decisions".utf8).write(to: URL(fileURLWithPath: harness.database))
        try await harness.start()
        let files = try FileManager.default.contentsOfDirectory(atPath: harness.directory)
        #expect(files.contains { $0.hasPrefix("d.sqlite.") && $0.contains("corrupt") }, "\(files)")
        let result = try await harness.run("locationctl", ["authorize", "org.example.x", "deny"])
        #expect(result.status == 0, "\(result)")
    }

    @Test func unusableDatabaseRefusesDecisionsLoudly() async throws {
        let harness = try DaemonHarness()
        let blocker = harness.directory + "/file"
        try Data().write(to: URL(fileURLWithPath: blocker))
        try await harness.start(["--simulate", "48.8584,2.2945", "--database", blocker + "/d.sqlite"])
        let result = try await harness.run("locationctl", ["authorize", "org.example.x", "deny"])
        #expect(result.status != 0, "\(result)")
        #expect(result.stderr.contains("no database"), "\(result)")
    }

    @Test func sigtermStopsCleanlyAndRemovesTheSocket() async throws {
        let harness = try DaemonHarness()
        let process = try await harness.start()
        await harness.kill(signal: SIGTERM)
        #expect(process.terminationStatus == 0, "\(harness.logText)")
        #expect(!FileManager.default.fileExists(atPath: harness.socket))
    }

    @Test func clientsReconnectAfterSIGKILLAndTheirUpdatesCarryOn() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "drive"])
        let plist = try harness.infoPlist(bundle: "org.example.updates")
        let app = try RunningApp(harness, ["updates", "--seconds", "60"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(await app.wait { $0.filter { $0.hasPrefix("location ") }.count >= 2 }, "\(app.lines.withLock { $0 })")
        await harness.kill()
        let before = app.count("location")
        try await harness.start(["--simulate", "drive"])
        #expect(await app.wait { $0.filter { $0.hasPrefix("location ") }.count >= before + 2 }, "\(app.lines.withLock { $0 })")
        let status = try #require(try statusOf(harness), "locationd answered its status request with another reply")
        #expect(status.apps.map(\.app).contains("org.example.updates"))
    }

    /// The daemon's status, nil when it answers something else (the caller's `#require` fails then).
    func statusOf(_ harness: DaemonHarness) throws -> DaemonStatus? {
        let connection = try DaemonConnection.connect(path: harness.socket, label: "t", timeout: 5)
        connection.startReading { _ in }
        defer { connection.close() }
        guard case let .status(status) = try connection.request(.status) else { return nil }
        return status
    }
}
