import CoreLocationDaemonProtocol
import Foundation
import Testing

/// locationd.conf, read by a real locationd: the file's options apply, the command line wins, a
/// bad file stops the daemon with the line at fault.
@Suite(.serialized) struct LocationdConfigTests {
    func write(_ text: String, in harness: DaemonHarness) throws -> String {
        let path = harness.directory + "/locationd.conf"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    func locate(_ harness: DaemonHarness) async throws -> String {
        let plist = try harness.infoPlist(bundle: "org.example.config")
        let run = try await harness.run("CoreLocationProbe", ["runloop", "10"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(run.status == 0, "\(run)")
        return run.stdout
    }

    @Test func theFilesOptionsApply() async throws {
        let harness = try DaemonHarness()
        let config = try write("# a test\nsimulate = 10.5,20.25\n  region-limit = 3  \n", in: harness)
        try await harness.start(["--config", config])
        #expect(try await locate(harness).contains("location 10.500000 20.250000"))
    }

    @Test func theCommandLineWins() async throws {
        let harness = try DaemonHarness()
        let config = try write("simulate = \"10.5,20.25\"\n", in: harness)
        try await harness.start(["--config", config, "--simulate", "48.8584,2.2945"])
        #expect(try await locate(harness).contains("location 48.858400 2.294500"))
    }

    /// A user's locationd reads $XDG_CONFIG_HOME/corelocation/locationd.conf by itself (root's is
    /// /etc/corelocation/locationd.conf, which a test must not write).
    @Test(.enabled(if: getuid() != 0, "needs a user other than root")) func theUsersDefaultFileIsRead() async throws {
        let harness = try DaemonHarness()
        let directory = harness.directory + "/config/corelocation"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data("simulate = 10.5,20.25\n".utf8).write(to: URL(fileURLWithPath: directory + "/locationd.conf"))
        try await harness.start([], hermetic: false)
        #expect(try await locate(harness).contains("location 10.500000 20.250000"))
    }

    @Test func aBadLineStopsTheDaemonAndNamesIt() async throws {
        let harness = try DaemonHarness()
        let config = try write("simulate = drive\nregion-limt = 3\n", in: harness)
        let result = try await harness.run("locationd", ["--socket", harness.socket, "--database", harness.database, "--config", config])
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("\(config):2: unknown key \"region-limt\""), "\(result)")
        let missing = try await harness.run("locationd", ["--socket", harness.socket, "--config", harness.directory + "/none.conf"])
        #expect(missing.status == 78, "\(missing)")
        #expect(missing.stderr.contains("none.conf: no such file"), "\(missing)")
    }
}
