import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The multi-call binary (`corelocation`, docs/decisions/0101) as the package installs it: one file under two names,
/// hard links, each running the program it is named after; the daemon it runs as `locationd` takes the `locationctl`
/// beside it for the Settings app, as it does the separate executables.
@Suite struct MultiCallBinaryTests {
    /// `corelocation` linked (copied where the file system refuses) into a directory of the harness's under `names`.
    static func install(_ names: [String], in harness: DaemonHarness) throws -> String {
        let binary = DaemonHarness.products.appendingPathComponent("corelocation").path
        let directory = harness.directory + "/bin"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in names {
            let path = directory + "/" + name
            if link(binary, path) != 0 { try FileManager.default.copyItem(atPath: binary, toPath: path) }
        }
        return directory
    }

    /// The clients' environment: they must reach the daemon; with the default policy deny only a stored decision
    /// authorizes them.
    static let clientEnvironment = ["CORELOCATION_DEFAULT_POLICY": "deny", "CORELOCATION_DAEMON": "require"]

    /// The daemon started through `locationd` (a link to the multi-call binary), default policy deny.
    static func startDaemon(_ locationd: String, in harness: DaemonHarness) async throws {
        try await harness.start(
            ["--simulate", "10.5,20.25"], extra: ["CORELOCATION_DEFAULT_POLICY": "deny"],
            executable: URL(fileURLWithPath: locationd))
    }

    @Test func theLinksRunTheDaemonAndTheSettingsAppBesideIt() async throws {
        let harness = try DaemonHarness()
        let bin = try Self.install(["locationd", "locationctl"], in: harness)
        // Default policy deny: only the stored decision authorizes `locate` below.
        let extra = Self.clientEnvironment
        try await Self.startDaemon(bin + "/locationd", in: harness)
        // A Settings request: accepted only from the locationctl beside the running locationd, recognised by the path
        // the kernel reports for the client's executable, which for a hard link is the name it was started by.
        let authorize = try await harness.run(
            bin + "/locationctl", ["authorize", "locationctl", "always"], extra: extra)
        #expect(authorize.status == 0, "\(authorize)\n\(harness.logText)")
        #expect(authorize.stdout.contains("(locationd)"), "\(authorize)")
        let list = try await harness.run(bin + "/locationctl", ["authorize", "--list"], extra: extra)
        #expect(list.status == 0 && list.stdout.contains("locationctl"), "\(list)")
        let locate = try await harness.run(bin + "/locationctl", ["locate"], extra: extra)
        #expect(locate.status == 0 && locate.stdout.contains("+10.500000, +20.250000"), "\(locate)")
    }

    /// Why the package installs hard links: through symbolic links the kernel names the one target for both
    /// programs, so the locationctl beside the daemon is not the client's executable and a Settings request is refused.
    @Test func symbolicLinksAreNotTheSettingsApp() async throws {
        let harness = try DaemonHarness()
        let bin = try Self.install(["corelocation"], in: harness)
        let links = bin + "/links"
        try FileManager.default.createDirectory(atPath: links, withIntermediateDirectories: true)
        for name in ["locationd", "locationctl"] {
            try FileManager.default.createSymbolicLink(
                atPath: links + "/" + name, withDestinationPath: bin + "/corelocation")
        }
        let extra = Self.clientEnvironment
        try await Self.startDaemon(links + "/locationd", in: harness)
        let authorize = try await harness.run(
            links + "/locationctl", ["authorize", "locationctl", "always"], extra: extra)
        #expect(authorize.status != 0, "\(authorize)")
        #expect(authorize.stderr.contains("is a Settings request"), "\(authorize)")
    }

    @Test func eachNameIsItsProgramAndAnotherNameSaysWhatItIs() async throws {
        let harness = try DaemonHarness()
        let bin = try Self.install(["locationd", "locationctl", "corelocation"], in: harness)
        let daemon = try await harness.run(bin + "/locationd", ["--help"])
        #expect(daemon.status == 0 && daemon.stdout.contains("USAGE: locationd"), "\(daemon)")
        let tool = try await harness.run(bin + "/locationctl", ["--help"])
        #expect(tool.status == 0 && tool.stdout.contains("USAGE: locationctl"), "\(tool)")
        // Under another name: by its first argument, else its usage and EX_USAGE.
        let byArgument = try await harness.run(bin + "/corelocation", ["locationctl", "--help"])
        #expect(byArgument.status == 0 && byArgument.stdout.contains("USAGE: locationctl"), "\(byArgument)")
        let unknown = try await harness.run(bin + "/corelocation", ["status"])
        #expect(unknown.status == 64, "\(unknown)")
        #expect(unknown.stderr.contains("multi-call binary"), "\(unknown)")
        // A symbolic link under any name runs the program its target is named after (the kernel's path comes first).
        let alias = bin + "/lctl"
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: bin + "/locationctl")
        let aliased = try await harness.run(alias, ["--help"])
        #expect(aliased.status == 0 && aliased.stdout.contains("USAGE: locationctl"), "\(aliased)")
    }
}
