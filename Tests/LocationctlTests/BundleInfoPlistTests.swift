import Foundation
import Testing

/// Issue 19: a client that checks `Bundle.main` for its usage description before asking (as popular
/// wrappers do) runs as a real process with its Info.plist in each place a user might put it.
/// Foundation itself is the oracle for where `Bundle.main` looks: the probe prints what it saw.
@Suite struct BundleInfoPlistTests {
    static let keys = [
        "CFBundleIdentifier": "org.example.bundleprobe",
        "NSLocationWhenInUseUsageDescription": "The probe shows where you are.",
    ]
    static let simulate = ["CORELOCATION_SIMULATE": "48.8584,2.2945", "CORELOCATION_DEFAULT_POLICY": "when-in-use"]
    static let notice = "Bundle.main does not see them"

    /// Copies the probe into `<sandbox>/<folder>/` (a copy, not a link: Foundation resolves links
    /// to the real executable's directory) and returns its URL.
    static func installProbe(in sandbox: Sandbox, folder: String = "app") throws -> URL {
        let directory = sandbox.directory.appendingPathComponent(folder, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let copy = directory.appendingPathComponent(Tool.bundleProbe.rawValue)
        try FileManager.default.copyItem(at: Tool.bundleProbe.url, to: copy)
        return copy
    }

    static func place(_ plist: String, at path: String, in sandbox: Sandbox) throws {
        let destination = sandbox.directory.appendingPathComponent(path)
        try FileManager.default.createDirectory(
            at: destination.deletingLastPathComponent(), withIntermediateDirectories: true
        )
        try FileManager.default.moveItem(atPath: plist, toPath: destination.path)
    }

    static func occurrences(of needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    @Test func besideTheExecutableBothSeeIt() async throws {
        let sandbox = try Sandbox()
        let probe = try Self.installProbe(in: sandbox)
        try Self.place(try sandbox.writeInfoPlist(Self.keys), at: "app/Info.plist", in: sandbox)
        let run = try await sandbox.run(.bundleProbe, ["10"], extra: Self.simulate, executable: probe)
        #expect(run.status == 0, "\(run)")
        let directory = probe.deletingLastPathComponent().path
        #expect(run.lines.first == "bundle NSLocationWhenInUseUsageDescription present path=\(directory)", "\(run)")
        #expect(run.authorizationStatuses == [0, 4], "\(run)")
        #expect(run.lines.last == "location 48.858400 2.294500", "\(run)")
        #expect(!run.stderr.contains(Self.notice), "\(run)")
        // The app is the bundle identifier Bundle.main read: a denial stored for it applies.
        _ = try await sandbox.locationctl("authorize", "org.example.bundleprobe", "deny")
        let denied = try await sandbox.run(.bundleProbe, ["10"], extra: Self.simulate, executable: probe)
        #expect(denied.status == 4, "\(denied)")
        #expect(denied.authorizationStatuses == [2], "\(denied)")
    }

    /// The installed layout: `/usr/lib/<app>/<app>` + `Info.plist`, `/usr/bin/<app>` a symbolic link.
    @Test func runThroughASymbolicLinkTheRealDirectoryCounts() async throws {
        let sandbox = try Sandbox()
        let probe = try Self.installProbe(in: sandbox, folder: "lib/app")
        try Self.place(try sandbox.writeInfoPlist(Self.keys), at: "lib/app/Info.plist", in: sandbox)
        let bin = sandbox.directory.appendingPathComponent("bin", isDirectory: true)
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let link = bin.appendingPathComponent("app")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: probe)
        let run = try await sandbox.run(.bundleProbe, ["10"], extra: Self.simulate, executable: link)
        #expect(run.status == 0, "\(run)")
        #expect(run.lines.first?.hasPrefix("bundle NSLocationWhenInUseUsageDescription present") == true, "\(run)")
        #expect(run.lines.last == "location 48.858400 2.294500", "\(run)")
    }

    @Test func inResourcesBothSeeIt() async throws {
        let sandbox = try Sandbox()
        let probe = try Self.installProbe(in: sandbox)
        try Self.place(try sandbox.writeInfoPlist(Self.keys), at: "app/Resources/Info.plist", in: sandbox)
        let run = try await sandbox.run(.bundleProbe, ["10"], extra: Self.simulate, executable: probe)
        #expect(run.status == 0, "\(run)")
        #expect(run.lines.first?.hasPrefix("bundle NSLocationWhenInUseUsageDescription present") == true, "\(run)")
        #expect(run.authorizationStatuses == [0, 4], "\(run)")
        #expect(run.lines.last == "location 48.858400 2.294500", "\(run)")
        #expect(!run.stderr.contains(Self.notice), "\(run)")
    }

    /// With a Resources/ directory, Foundation ignores Info.plist beside the executable, and so
    /// does Core Location (one place); a notice says where to move it.
    @Test func besideTheExecutableIsIgnoredWhenResourcesExists() async throws {
        let sandbox = try Sandbox()
        let probe = try Self.installProbe(in: sandbox)
        try FileManager.default.createDirectory(
            at: probe.deletingLastPathComponent().appendingPathComponent("Resources"), withIntermediateDirectories: true
        )
        try Self.place(try sandbox.writeInfoPlist(Self.keys), at: "app/Info.plist", in: sandbox)
        let run = try await sandbox.run(
            .bundleProbe, ["--request-anyway", "2"], extra: Self.simulate, executable: probe)
        #expect(run.lines.first?.hasPrefix("bundle NSLocationWhenInUseUsageDescription missing") == true, "\(run)")
        #expect(run.status == 5, "\(run)")
        #expect(run.authorizationStatuses == [0], "\(run)")
        #expect(run.stderr.contains("Resources/Info.plist"), "\(run)")
    }

    @Test func throughTheEnvironmentVariableOnlyCoreLocationSeesItAndOneNoticeSaysSo() async throws {
        let sandbox = try Sandbox()
        let probe = try Self.installProbe(in: sandbox)
        let plist = try sandbox.writeInfoPlist(Self.keys, name: "elsewhere.plist")
        var extra = Self.simulate
        extra["CORELOCATION_INFO_PLIST"] = plist
        // The wrapper refuses to ask: Bundle.main lacks the key.
        let refused = try await sandbox.run(.bundleProbe, ["10"], extra: extra, executable: probe)
        #expect(refused.status == 6, "\(refused)")
        let directory = probe.deletingLastPathComponent().path
        let expected = ["bundle NSLocationWhenInUseUsageDescription missing path=\(directory)", "refused"]
        #expect(refused.lines == expected, "\(refused)")
        #expect(Self.occurrences(of: Self.notice, in: refused.stderr) == 1, "\(refused)")
        #expect(refused.stderr.contains("\(probe.deletingLastPathComponent().path)/Info.plist"), "\(refused)")
        // Core Location itself still reads it: plain iOS code that asks anyway is authorized.
        let asked = try await sandbox.run(.bundleProbe, ["--request-anyway", "10"], extra: extra, executable: probe)
        #expect(asked.status == 0, "\(asked)")
        #expect(asked.authorizationStatuses == [0, 4], "\(asked)")
        #expect(Self.occurrences(of: Self.notice, in: asked.stderr) == 1, "\(asked)")
    }

    @Test func executableInfoPlistWorksForCoreLocationWithTheNotice() async throws {
        let sandbox = try Sandbox()
        let probe = try Self.installProbe(in: sandbox)
        try Self.place(
            try sandbox.writeInfoPlist(Self.keys), at: "app/\(Tool.bundleProbe.rawValue)-Info.plist", in: sandbox
        )
        let asked = try await sandbox.run(
            .bundleProbe, ["--request-anyway", "10"], extra: Self.simulate, executable: probe)
        #expect(asked.status == 0, "\(asked)")
        #expect(asked.lines.first?.hasPrefix("bundle NSLocationWhenInUseUsageDescription missing") == true, "\(asked)")
        #expect(Self.occurrences(of: Self.notice, in: asked.stderr) == 1, "\(asked)")
    }

    /// The same file in both places: nothing to warn about.
    @Test func noNoticeWhenBundleMainHasTheSameKeys() async throws {
        let sandbox = try Sandbox()
        let probe = try Self.installProbe(in: sandbox)
        try Self.place(try sandbox.writeInfoPlist(Self.keys), at: "app/Info.plist", in: sandbox)
        var extra = Self.simulate
        extra["CORELOCATION_INFO_PLIST"] = try sandbox.writeInfoPlist(Self.keys, name: "same.plist")
        let run = try await sandbox.run(.bundleProbe, ["10"], extra: extra, executable: probe)
        #expect(run.status == 0, "\(run)")
        #expect(!run.stderr.contains(Self.notice), "\(run)")
    }

    /// Apple's behaviour without a usage description: no prompt, the status stays notDetermined,
    /// and a location request made anyway gets neither a location nor an error.
    @Test func missingTheRequestIsIgnoredAndTheStatusStaysNotDetermined() async throws {
        let sandbox = try Sandbox()
        let probe = try Self.installProbe(in: sandbox)
        let refused = try await sandbox.run(.bundleProbe, ["10"], extra: Self.simulate, executable: probe)
        #expect(refused.status == 6, "\(refused)")
        #expect(!refused.stderr.contains(Self.notice), "\(refused)")
        let asked = try await sandbox.run(
            .bundleProbe, ["--request-anyway", "2"], extra: Self.simulate, executable: probe)
        #expect(asked.status == 5, "\(asked)")
        #expect(asked.authorizationStatuses == [0], "\(asked)")
        #expect(!asked.lines.contains { $0.hasPrefix("location") || $0.hasPrefix("error") }, "\(asked)")
        #expect(asked.stderr.contains("NSLocationWhenInUseUsageDescription"), "\(asked)")
        let list = try await sandbox.locationctl("authorize", "--list")
        #expect(!list.stdout.contains(probe.path), "\(list)")
    }
}
