import CoreLocationGPSDTestSupport
import CoreLocationStorage
import Foundation
import Testing

@testable import LocationdCommand

#if canImport(Glibc)
import Glibc
#endif

/// Issue 11's production launcher with a real systemd user manager: locationd relaunches a killed
/// app through `systemd-run --user`, or through the template unit its Info.plist names
/// (docs/decisions/0026-background-relaunch.md).
///
/// A user manager needs a machine booted with systemd (it checks `/run/systemd/system`). The test
/// machine (a container) was not, so the daemon runs in a mount namespace of its own
/// (`unshare -m`, root only) where a tmpfs over `/run/systemd` holds that directory, beside a
/// `systemd --user` started for the test; nothing of the host's `/run` changes.
@Suite(.serialized, .enabled(if: UserManager.available,
    "needs root and Debian packages systemd, dbus-user-session and util-linux"))
struct SystemdLauncherTests {
    @Test func killedAppIsRelaunchedAsATransientUnit() async throws {
        let harness = try DaemonHarness()
        let manager = try UserManager(harness)
        defer { manager.stop() }
        let log = harness.directory + "/app.log"
        defer { BackgroundRelaunchTests.killAll(log) }
        let plist = try harness.infoPlist(bundle: "org.example.background")
        try await relaunch(harness, manager, log: log, plist: plist)

        let launches = BackgroundRelaunchTests.launches(log)
        #expect(launches.map(\.reason) == ["none", "location"])
        // Started by the user manager (its child), not by locationd; in a transient unit.
        let relaunched = try #require(launches.last?.pid)
        #expect(UserManager.parent(of: relaunched) == manager.pid, "\(harness.logText)")
        #expect(try manager.unit(of: relaunched).hasPrefix("run-"))
    }

    @Test func killedAppIsRelaunchedThroughTheTemplateUnitOfItsInfoPlist() async throws {
        let harness = try DaemonHarness()
        let manager = try UserManager(harness)
        defer { manager.stop() }
        let log = harness.directory + "/app.log"
        defer { BackgroundRelaunchTests.killAll(log) }
        let plist = try harness.infoPlist(
            bundle: "org.example.background", extra: [LaunchTarget.unitKey: "corelocation-probe@.service"])
        // The unit runs the same command with the daemon's socket; the instance is the reason.
        let environment = harness.environment.merging(manager.environment) { $1 }
            .filter { $0.key.hasPrefix("CORELOCATION_") || $0.key.hasPrefix("XDG_") }
            .merging(["CORELOCATION_INFO_PLIST": plist]) { $1 }
        let command = ([DaemonHarness.products.appendingPathComponent("CoreLocationAppProbe").path]
            + BackgroundRelaunchTests.appArguments(log: log)).joined(separator: " ")
        try manager.install(
            unit: "corelocation-probe@.service",
            """
            [Service]
            ExecStart=\(command)
            \(environment.sorted { $0.key < $1.key }.map { "Environment=\($0.key)=\($0.value)" }.joined(separator: "\n"))
            Environment=CORELOCATION_LAUNCH_REASON=%i
            """)
        try await relaunch(harness, manager, log: log, plist: plist)

        let launches = BackgroundRelaunchTests.launches(log)
        #expect(launches.map(\.reason) == ["none", "location"])
        let relaunched = try #require(launches.last?.pid)
        #expect(UserManager.parent(of: relaunched) == manager.pid, "\(harness.logText)")
        #expect(try manager.unit(of: relaunched) == "corelocation-probe@location.service")
    }

    @Test func templateUnitsAreStartedAsTheirLocationInstance() {
        #expect(Launcher.instance(of: "app@.service") == "app@location.service")
        #expect(Launcher.instance(of: "app.service") == "app.service")
        #expect(Launcher.instance(of: "app@work.service") == "app@work.service")
    }

    /// The app monitors a region from outside, is killed, the drive enters: locationd's systemd
    /// launcher starts it again and its delegate hears the entry once.
    private func relaunch(_ harness: DaemonHarness, _ manager: UserManager, log: String, plist: String) async throws {
        let track = try BackgroundRelaunchTests.track(in: harness, outside: 60, cycles: 0, endInside: true)
        try await harness.start(
            ["--simulate", track, "--simulate-speed", "2", "--region-dwell", "0.6", "--launcher", "systemd",
             "--relaunch-pickup", "5"],
            extra: manager.environment, through: manager.wrapper)
        let app = try RunningApp(
            harness, BackgroundRelaunchTests.appArguments(log: log),
            extra: manager.environment.merging(["CORELOCATION_INFO_PLIST": plist]) { $1 })
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 15) {
                await BackgroundRelaunchTests.background(harness)?.targets.first?.state == "running"
            })
        kill(app.process.processIdentifier, SIGKILL)
        _ = await RunningApp.waitGone(app.process.processIdentifier, timeout: 5)
        #expect(BackgroundRelaunchTests.events(log).isEmpty, "the app was killed before the drive reached the region")
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 60) { BackgroundRelaunchTests.events(log) == ["enter"] },
            "\(BackgroundRelaunchTests.lines(log))\n\(harness.logText)")
        #expect(
            await BackgroundRelaunchTests.wait(timeout: 10) {
                await BackgroundRelaunchTests.background(harness)?.targets.first?.pending == 0
            })
        await Polling.pause(1)
        #expect(BackgroundRelaunchTests.events(log) == ["enter"])
    }
}

/// A `systemd --user` for one test, in locationd's mount namespace, with its runtime directory and
/// unit directory under the harness's.
struct UserManager {
    static let systemd = "/lib/systemd/systemd"

    /// Root, the programs, and a mount namespace that can mount (a container without
    /// CAP_SYS_ADMIN cannot): tried once.
    static let available: Bool = {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"),
            FileManager.default.isExecutableFile(atPath: systemd),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/systemd-run")
        else { return false }
        let probe = ChildProcess()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        probe.arguments = [
            "-m", "--propagation", "private", "/bin/sh", "-c", "mkdir -p /run/systemd && mount -t tmpfs tmpfs /run/systemd",
        ]
        probe.standardOutput = FileHandle.nullDevice
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    let runtime: String
    let units: String
    let pidFile: String

    init(_ harness: DaemonHarness) throws {
        runtime = harness.directory + "/run"
        units = harness.directory + "/config/systemd/user"
        pidFile = harness.directory + "/systemd.pid"
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(atPath: units, withIntermediateDirectories: true)
    }

    var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime] }

    /// `unshare -m sh -c SCRIPT sh LOCATIOND ARGS…`: the namespace, the manager, then locationd
    /// (exec'd, so the harness's process is locationd's).
    var wrapper: [String] {
        let script = """
            set -e
            mkdir -p /run/systemd
            mount -t tmpfs tmpfs /run/systemd
            mkdir /run/systemd/system
            \(Self.systemd) --user >/dev/null 2>&1 &
            echo $! > '\(pidFile)'
            i=0
            while [ ! -S "$XDG_RUNTIME_DIR/systemd/private" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done
            exec "$@"
            """
        return ["/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c", script, "sh"]
    }

    var pid: Int32? {
        (try? String(contentsOfFile: pidFile, encoding: .utf8)).flatMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    func install(unit name: String, _ text: String) throws {
        try text.write(toFile: units + "/" + name, atomically: true, encoding: .utf8)
    }

    /// The systemd unit a process runs in, from its cgroup of the `name=systemd` hierarchy (or the
    /// unified one): `…/run-u12.service` → `run-u12.service`.
    func unit(of pid: Int32) throws -> String {
        let cgroups = try String(contentsOfFile: "/proc/\(pid)/cgroup", encoding: .utf8)
        let line = cgroups.split(separator: "\n").first { $0.contains(":name=systemd:") }
            ?? cgroups.split(separator: "\n").first { $0.hasPrefix("0::") }
        return line.flatMap { $0.split(separator: "/").last.map(String.init) } ?? ""
    }

    /// The parent of `pid`, from /proc/PID/stat (the field after the command's closing parenthesis).
    static func parent(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        return fields.count > 1 ? Int32(fields[1]) : nil
    }

    /// Ends the manager (and with it the units it started).
    func stop() {
        if let pid { kill(pid, SIGTERM) }
    }
}
