import Foundation
import Testing

/// `locationctl plist init` writes the template and `locationctl plist install` puts it where
/// Foundation's Bundle.main reads it; the bundle probe (Foundation itself) checks the result.
@Suite struct PlistCommandTests {
    static func readPlist(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
    }

    @Test func initWritesTheUsageKeysAndKeepsAnExistingFile() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl(
            "plist", "init", "--identifier", "com.example.tracker", "--when-in-use", "Shows where you are.",
            "--always", "Records your rides.", "--reduced-accuracy"
        )
        #expect(run.status == 0, "\(run)")
        let path = sandbox.directory.appendingPathComponent("Info.plist").path
        let plist = try Self.readPlist(path)
        #expect(plist["CFBundleIdentifier"] as? String == "com.example.tracker")
        #expect(plist["NSLocationWhenInUseUsageDescription"] as? String == "Shows where you are.")
        #expect(plist["NSLocationAlwaysAndWhenInUseUsageDescription"] as? String == "Records your rides.")
        #expect(plist["NSLocationDefaultAccuracyReduced"] as? Bool == true)

        let again = try await sandbox.locationctl("plist", "init", "--when-in-use", "Other.")
        #expect(again.status == 73, "\(again)")
        #expect(again.stderr.contains("--force"), "\(again)")
        #expect(try Self.readPlist(path)["NSLocationWhenInUseUsageDescription"] as? String == "Shows where you are.")

        let forced = try await sandbox.locationctl("plist", "init", "--when-in-use", "Other.", "--force")
        #expect(forced.status == 0, "\(forced)")
        let replaced = try Self.readPlist(path)
        #expect(replaced["NSLocationWhenInUseUsageDescription"] as? String == "Other.")
        #expect(replaced["NSLocationAlwaysAndWhenInUseUsageDescription"] == nil)
    }

    @Test func initRefusesAnEmptyDescription() async throws {
        let sandbox = try Sandbox()
        let run = try await sandbox.locationctl("plist", "init", "--when-in-use", " ")
        #expect(run.status == 64, "\(run)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.directory.appendingPathComponent("Info.plist").path))
    }

    @Test func installedBesideTheProductBundleMainSeesIt() async throws {
        let sandbox = try Sandbox()
        let probe = try BundleInfoPlistTests.installProbe(in: sandbox, folder: "bin")
        let written = try await sandbox.locationctl("plist", "init", "--identifier", "org.example.installed")
        #expect(written.status == 0, "\(written)")
        let install = try await sandbox.locationctl(
            "plist", "install", "--product", Tool.bundleProbe.rawValue, "--bin-path", "bin"
        )
        #expect(install.status == 0, "\(install)")
        #expect(install.stdout.contains("bin/Info.plist"), "\(install)")
        let run = try await sandbox.run(.bundleProbe, ["10"], extra: BundleInfoPlistTests.simulate, executable: probe)
        #expect(run.status == 0, "\(run)")
        #expect(run.lines.first?.hasPrefix("bundle NSLocationWhenInUseUsageDescription present") == true, "\(run)")
        #expect(run.lines.last == "location 48.858400 2.294500", "\(run)")
    }

    @Test func installGoesIntoResourcesWhenTheDirectoryHasOne() async throws {
        let sandbox = try Sandbox()
        let probe = try BundleInfoPlistTests.installProbe(in: sandbox, folder: "bin")
        try FileManager.default.createDirectory(
            at: probe.deletingLastPathComponent().appendingPathComponent("Resources"), withIntermediateDirectories: true
        )
        _ = try await sandbox.locationctl("plist", "init")
        let install = try await sandbox.locationctl("plist", "install", "--bin-path", "bin")
        #expect(install.status == 0, "\(install)")
        #expect(install.stdout.contains("bin/Resources/Info.plist"), "\(install)")
        let run = try await sandbox.run(.bundleProbe, ["10"], extra: BundleInfoPlistTests.simulate, executable: probe)
        #expect(run.status == 0, "\(run)")
        #expect(run.lines.first?.hasPrefix("bundle NSLocationWhenInUseUsageDescription present") == true, "\(run)")
    }

    /// Without --bin-path the directory comes from `swift build --show-bin-path` (a stand-in `swift`
    /// on PATH records its arguments and answers with a directory).
    @Test func installAsksSwiftPMForTheProductsDirectory() async throws {
        let sandbox = try Sandbox()
        let probe = try BundleInfoPlistTests.installProbe(in: sandbox, folder: "products")
        let tools = sandbox.directory.appendingPathComponent("tools")
        try FileManager.default.createDirectory(at: tools, withIntermediateDirectories: true)
        let swift = tools.appendingPathComponent("swift")
        let script = "#!/bin/sh\necho \"$@\" > \(sandbox.directory.path)/swift-arguments\n"
            + "echo \(probe.deletingLastPathComponent().path)\n"
        try Data(script.utf8).write(to: swift)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
        _ = try await sandbox.locationctl("plist", "init")
        let path = tools.path + ":" + (sandbox.environment["PATH"] ?? "/usr/bin:/bin")
        let install = try await sandbox.locationctl(
            "plist", "install", "--product", Tool.bundleProbe.rawValue, "-c", "release", extra: ["PATH": path]
        )
        #expect(install.status == 0, "\(install)")
        let arguments = try String(contentsOfFile: sandbox.directory.path + "/swift-arguments", encoding: .utf8)
        #expect(arguments == "build --show-bin-path --package-path . -c release\n")
        #expect(FileManager.default.fileExists(atPath: probe.deletingLastPathComponent().path + "/Info.plist"))

        let missing = try await sandbox.locationctl(
            "plist", "install", "--product", "nosuchproduct", extra: ["PATH": path]
        )
        #expect(missing.status == 66, "\(missing)")
        #expect(missing.stderr.contains("nosuchproduct"), "\(missing)")
    }
}
