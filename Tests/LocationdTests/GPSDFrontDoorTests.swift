import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationSources
import Foundation
import Synchronization
import Testing

@testable import LocationdCommand

/// Issue 39 with gpsd's own clients: `gpspipe` (Debian's gpsd-clients) and a raw client of the protocol against a
/// real locationd whose gpsd front door listens on a free loopback port. The simulated source stands at one point,
/// so every TPV must carry exactly its coordinates.
@Suite(.enabled(if: GPSDClients.hasGpspipe, "needs Debian package gpsd-clients (gpspipe)"))
struct GPSDFrontDoorTests {
    static let gpspipe = GPSDClients.gpspipe
    /// gpsd 3.22's greeting, as `gpspipe -w -n 1` prints it against /usr/sbin/gpsd 3.22.
    static let gpsdVersion = #"{"class":"VERSION","release":"3.22","rev":"3.22","proto_major":3,"proto_minor":14}"#
    static let point = (latitude: 48.8584, longitude: 2.2945)

    /// A daemon at `point` speaking gpsd's protocol on a free port; returns the port.
    static func start(_ harness: DaemonHarness, _ extra: [String] = []) async throws -> Int {
        let port = Int(try freeLoopbackPort())
        try await harness.start(
            ["--simulate", "\(point.latitude),\(point.longitude)", "--gpsd-listen", "127.0.0.1:\(port)"] + extra)
        return port
    }

    static func objects(_ output: String) -> [[String: Any]] {
        output.split(whereSeparator: \.isNewline).compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
        }
    }

    @Test func gpspipeReceivesTheSimulatedPosition() async throws {
        let harness = try DaemonHarness()
        let port = try await Self.start(harness)
        let run = try await harness.run(Self.gpspipe, ["-w", "-n", "5", "127.0.0.1:\(port)"])
        #expect(run.status == 0, "\(run)")
        // gpsd ends its lines with \r\n, which Swift counts as one Character: split on both.
        let lines = run.stdout.split(whereSeparator: \.isNewline).map(String.init)
        #expect(lines.first == Self.gpsdVersion)
        let objects = Self.objects(run.stdout)
        #expect(objects.map { $0["class"] as? String } == ["VERSION", "DEVICES", "WATCH", "TPV", "TPV"])
        let watch = try #require(objects.dropFirst(2).first)
        #expect(watch["enable"] as? Bool == true && watch["json"] as? Bool == true)
        let devices = try #require(objects.dropFirst().first?["devices"] as? [[String: Any]])
        #expect(devices.first?["path"] as? String == "locationd" && devices.first?["subtype"] as? String == "simulated")
        for tpv in objects.suffix(2) {
            #expect(tpv["lat"] as? Double == Self.point.latitude && tpv["lon"] as? Double == Self.point.longitude)
            #expect(tpv["device"] as? String == "locationd")
            #expect([2, 3].contains(tpv["mode"] as? Int))
            let time = try #require(tpv["time"] as? String)
            #expect(time.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil, "\(time)")
        }
        // The loopback peer was found as the process it is (/proc/net/tcp, /proc/PID/fd), not as an unknown one.
        #expect(await harness.logContains("app=/usr/bin/gpspipe"), "\(harness.logText)")
        #expect(!harness.logText.contains("app=unidentified-peer"))
    }

    /// `locationctl authorize /usr/bin/gpspipe deny` while gpspipe watches: one ERROR, and no TPV after it, while
    /// another program's client (this test process, allowed) keeps getting them; a new gpspipe hears ERROR at once.
    @Test func denyGivesAnErrorAndNoReports() async throws {
        let harness = try DaemonHarness()
        let port = try await Self.start(harness)
        // gpspipe's stdout is block-buffered into a pipe: stdbuf makes it a line at a time (and execs gpspipe, so
        // the process is still gpspipe).
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        process.arguments = ["-oL", Self.gpspipe, "-w", "127.0.0.1:\(port)"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { _ = ChildProcess.kill(process) }
        let watcher = GPSDLineClient(pipe: pipe)
        let other = try GPSDLineClient(port: port)
        other.send(#"?WATCH={"enable":true,"json":true};"# + "\n")
        #expect(await watcher.wait { $0.count("TPV") >= 1 }, "\(watcher.lines.withLock { $0 }) \(harness.logText)")

        let denied = try await harness.run("locationctl", ["authorize", Self.gpspipe, "deny"])
        #expect(denied.status == 0, "\(denied)")
        #expect(await watcher.wait { $0.count("ERROR") == 1 }, "\(denied) \(harness.logText)")
        let atDeny = other.count("TPV")
        #expect(await other.wait { $0.count("TPV") >= atDeny + 3 })
        let lines = watcher.lines.withLock { $0 }
        let error = try #require(lines.firstIndex { $0.contains(#""class":"ERROR""#) })
        #expect(!lines[error...].contains { $0.contains(#""class":"TPV""#) }, "\(lines)")
        _ = ChildProcess.kill(process, signal: SIGTERM)

        let again = try await harness.run(Self.gpspipe, ["-w", "-n", "4", "127.0.0.1:\(port)"])
        #expect(Self.objects(again.stdout).map { $0["class"] as? String } == ["VERSION", "DEVICES", "WATCH", "ERROR"])
    }

    /// Reduced accuracy for gpspipe: its TPV is the cell centre an app holding reduced accuracy gets (the oracle:
    /// `locationctl locate` under the same decision), a 2D fix with that cell's error, not the point.
    @Test func reducedAccuracyGivesTheCellCentre() async throws {
        let harness = try DaemonHarness()
        let port = try await Self.start(harness)
        for app in [Self.gpspipe, "locationctl"] {
            let set = try await harness.run("locationctl", ["authorize", app, "when-in-use", "--reduced"])
            #expect(set.status == 0, "\(set)")
        }
        let locate = try await harness.run("locationctl", ["locate", "--format", "json"])
        let app = try #require(Self.objects(locate.stdout).first, "\(locate)")
        let latitude = try #require(app["latitude"] as? Double)
        let longitude = try #require(app["longitude"] as? Double)
        let accuracy = try #require(app["horizontalAccuracy"] as? Double)
        #expect(abs(latitude - Self.point.latitude) > 1e-4 || abs(longitude - Self.point.longitude) > 1e-4)

        let run = try await harness.run(Self.gpspipe, ["-w", "-n", "4", "127.0.0.1:\(port)"])
        let tpv = try #require(Self.objects(run.stdout).last, "\(run)")
        #expect(tpv["class"] as? String == "TPV")
        #expect(tpv["mode"] as? Int == 2 && tpv["altHAE"] == nil)
        let lat = try #require(tpv["lat"] as? Double)
        let lon = try #require(tpv["lon"] as? Double)
        #expect(abs(lat - latitude) <= 1e-9 && abs(lon - longitude) <= 1e-9, "\(tpv) vs \(app)")
        let eph = try #require(tpv["eph"] as? Double)
        #expect(abs(eph - accuracy / GPSDTPV.horizontalConfidenceScale) < 0.001)
    }

    /// Unknown commands, invalid JSON, a 1 MB line: one ERROR each, the connection still answers, and another client
    /// keeps getting its TPVs.
    @Test func badInputGetsErrorsAndTheConnectionAnswers() async throws {
        let harness = try DaemonHarness()
        let port = try await Self.start(harness)
        let watcher = try GPSDLineClient(port: port)
        watcher.send(#"?WATCH={"enable":true};"# + "\n")
        #expect(await watcher.wait { $0.count("TPV") >= 1 })

        let client = try GPSDLineClient(port: port)
        #expect(await client.wait { $0.count("VERSION") == 1 })
        client.send("?FOO;\n{bad\n?WATCH={bad};\n")
        client.send([UInt8(ascii: "?")] + [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20) + [10])
        client.send("?VERSION;\r\n")
        #expect(await client.wait { $0.count("VERSION") == 2 }, "\(client.lines.withLock { $0 })")
        let classes = client.lines.withLock { $0 }.map { line in
            ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["class"] as? String
        }
        #expect(classes == ["VERSION", "ERROR", "ERROR", "ERROR", "ERROR", "VERSION"])
        let messages = client.objects("ERROR").compactMap { $0["message"] as? String }
        #expect(messages.last?.hasPrefix("Request too long") == true, "\(messages)")
        #expect(!client.closed)

        let before = watcher.count("TPV")
        #expect(await watcher.wait { $0.count("TPV") >= before + 2 })
    }

    /// 10⁴ `?WATCH` in one burst: each answered (DEVICES then WATCH, as gpsd answers), the app asked once, the
    /// reports keep coming.
    @Test func aBurstOfWatchesIsAnswered() async throws {
        let harness = try DaemonHarness()
        let port = try await Self.start(harness)
        let client = try GPSDLineClient(port: port)
        let burst = String(repeating: #"?WATCH={"enable":true,"json":true};"# + "\n", count: 10_000)
        #expect(client.send(burst))
        #expect(await client.wait(timeout: 30) { $0.count("WATCH") == 10_000 }, "\(client.count("WATCH"))")
        #expect(client.count("DEVICES") == 10_000)
        let before = client.count("TPV")
        #expect(await client.wait { $0.count("TPV") >= before + 2 })
    }

    /// A client that writes requests and never reads what they answer is cut off once its socket stays full for
    /// the write timeout; another client is not held up.
    @Test func aClientThatNeverReadsIsCutOff() async throws {
        let harness = try DaemonHarness()
        let port = try await Self.start(harness, ["--write-timeout", "0.5"])
        let watcher = try GPSDLineClient(port: port)
        watcher.send(#"?WATCH={"enable":true};"# + "\n")
        let silent = try GPSDLineClient(port: port, reading: false)
        // 100 000 watches (2.5 MB of requests, 29 MB of answers): far more than the two sockets' buffers hold.
        let flood = [UInt8](String(repeating: #"?WATCH={"enable":true};"# + "\n", count: 100_000).utf8)
        _ = try await Polling.onOwnThread { silent.send(flood) }
        #expect(await harness.logContains("gpsd client cut off", timeout: 30), "\(harness.logText)")
        // Closed by the daemon: a write to it fails (the kernel resets a socket closed with unread input).
        #expect(await Polling.until(timeout: 10) { !silent.send("?VERSION;\n") })
        let before = watcher.count("TPV")
        #expect(await watcher.wait { $0.count("TPV") >= before + 2 })
    }

    /// The Unix socket: the peer is named by SO_PEERCRED and its executable, read at accept, and its watch gets TPVs.
    @Test func unixSocketClient() async throws {
        let harness = try DaemonHarness()
        let path = harness.directory + "/gpsd.sock"
        try await harness.start([
            "--simulate", "\(Self.point.latitude),\(Self.point.longitude)", "--gpsd-listen", "unix:\(path)",
        ])
        let client = try GPSDLineClient(unixPath: path)
        client.send(#"?WATCH={"enable":true};"# + "\n")
        #expect(await client.wait { $0.count("TPV") >= 1 }, "\(harness.logText)")
        #expect(client.objects("TPV").first?["lat"] as? Double == Self.point.latitude)
        // The gpsd client's own line: the harness's readiness client (this executable too) is logged with its app.
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #expect(await harness.logContains("Protocol client opened"), "\(harness.logText)")
        let opened = harness.logText.split(separator: "\n").filter { $0.contains("Protocol client opened") }
        #expect(opened.count == 1 && opened.allSatisfy { $0.contains("app=\(executable)") }, "\(opened)")
    }

    /// A program that is a socket client of the daemon too (no Info.plist: its app has no usage description) and
    /// then watches as a gpsd client shares that app, and is asked with the gpsd protocol's text: it gets TPVs.
    /// (CI once saw the harness's own readiness client still open when the gpsd client came, and no TPV.)
    @Test func aSocketClientOfTheSameProgramDoesNotSilenceItsGPSDClient() async throws {
        let harness = try DaemonHarness()
        let port = try await Self.start(harness)
        let connection = try DaemonConnection.connect(path: harness.socket, label: "held", timeout: 5)
        defer { connection.close() }
        let client = try GPSDLineClient(port: port)
        client.send(#"?WATCH={"enable":true};"# + "\n")
        #expect(await client.wait { $0.count("TPV") >= 1 }, "\(harness.logText)")
        #expect(!harness.logText.contains("without a usage description"), "\(harness.logText)")
    }

    /// `localhost` is both loopbacks, as gpsd listens: a client of each family gets the fix, and the IPv6 peer is
    /// identified through `/proc/net/tcp6` as the same app (this test's own executable).
    @Test func localhostListensOnBothLoopbacks() async throws {
        let harness = try DaemonHarness()
        let port = Int(try freeLoopbackPort())
        try await harness.start([
            "--simulate", "\(Self.point.latitude),\(Self.point.longitude)", "--gpsd-listen", "localhost:\(port)",
        ])
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        for ipv6 in [false, true] {
            let client = try GPSDLineClient(port: port, ipv6: ipv6)
            client.send(#"?WATCH={"enable":true};"# + "\n")
            #expect(await client.wait { $0.count("TPV") >= 1 }, "ipv6 \(ipv6): \(harness.logText)")
            #expect(client.objects("TPV").first?["lat"] as? Double == Self.point.latitude)
        }
        #expect(await harness.logContains("address=[::1]:\(port)"), "\(harness.logText)")
        #expect(harness.logText.components(separatedBy: "app=\(executable)").count >= 2, "\(harness.logText)")
        #expect(!harness.logText.contains("app=unidentified-peer"), "\(harness.logText)")
    }

    /// A peer locationd cannot identify (here: locationd runs as nobody, which may not read root's /proc/PID/fd)
    /// is the app `unidentified-peer`, answered by the headless policy (simulated sources: allowed), and
    /// `locationctl authorize unidentified-peer deny` closes the door to it at once.
    @Test(
        .enabled(
            if: GPSDClients.canRunAsNobody, "needs root and setpriv (Debian util-linux) to run locationd as nobody"))
    func anUnidentifiablePeerGetsTheHeadlessPolicy() async throws {
        let harness = try DaemonHarness()
        #expect(chmod(harness.directory, 0o777) == 0)
        let port = Int(try freeLoopbackPort())
        try await harness.start(
            ["--simulate", "\(Self.point.latitude),\(Self.point.longitude)", "--gpsd-listen", "127.0.0.1:\(port)"],
            through: GPSDClients.asNobody)
        let client = try GPSDLineClient(port: port)
        client.send(#"?WATCH={"enable":true};"# + "\n")
        #expect(await client.wait { $0.count("TPV") >= 1 }, "\(harness.logText)")
        #expect(harness.logText.contains("app=unidentified-peer"), "\(harness.logText)")

        let locationctl = DaemonHarness.products.appendingPathComponent("locationctl").path
        let denied = try await harness.run(
            GPSDClients.asNobody[0],
            Array(GPSDClients.asNobody.dropFirst()) + [locationctl, "authorize", "unidentified-peer", "deny"])
        #expect(denied.status == 0, "\(denied)")
        #expect(await client.wait { $0.count("ERROR") == 1 }, "\(client.lines.withLock { $0 })")
    }

    /// `cgps -s` (gpsd-clients' curses client) in a terminal made by `script`: it shows the simulated point with
    /// its own formatting (8 decimals). The screen is read as it is drawn, until both coordinates are on it or
    /// 60 s pass (a loaded CI machine once took longer than a fixed 8 s); `timeout` bounds cgps with SIGKILL
    /// in any case (the test runner blocks SIGTERM, and its children inherit the mask).
    @Test(.enabled(if: GPSDClients.hasCgps, "needs Debian packages gpsd-clients (cgps) and bsdutils (script)"))
    func cgpsShowsThePosition() async throws {
        let harness = try DaemonHarness()
        let port = try await Self.start(harness)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qc", "exec timeout -s KILL 70 cgps -s 127.0.0.1:\(port)", "/dev/null"]
        process.environment = harness.environment.merging(["TERM": "xterm", "COLUMNS": "100", "LINES": "30"]) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let screen = Mutex("")
        PipeReader.drain(pipe.fileHandleForReading) { data in screen.withLock { $0 += String(decoding: data, as: UTF8.self) } }
        try process.run()
        defer { kill(process.processIdentifier, SIGKILL) }
        let shown = await Polling.until(timeout: 60) {
            screen.withLock { $0.contains("48.85840000") && $0.contains("2.29450000") }
        }
        #expect(shown, "\(screen.withLock { $0.suffix(2000) })\n\(harness.logText)")
    }

    /// Python's `gps` module (Debian python3-gps), as gpsd's own clients use it, reads a TPV.
    @Test(.enabled(if: GPSDClients.pythonGPS, "needs Debian package python3-gps"))
    func pythonGPSModuleReadsATPV() async throws {
        let harness = try DaemonHarness()
        let port = try await Self.start(harness)
        let script = """
            import gps
            session = gps.gps(host="127.0.0.1", port=\(port), mode=gps.WATCH_ENABLE)
            for report in session:
                if report["class"] == "TPV":
                    print("%.9f %.9f" % (report["lat"], report["lon"]))
                    break
            """
        let run = try await harness.run("/usr/bin/python3", ["-c", script])
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout == "48.858400000 2.294500000\n", "\(run)")
    }
}

/// gpsd's clients on this machine.
enum GPSDClients {
    static let gpspipe = "/usr/bin/gpspipe"
    static let hasGpspipe = FileManager.default.isExecutableFile(atPath: gpspipe)
    static let hasCgps = ["/usr/bin/cgps", "/usr/bin/script", "/usr/bin/timeout"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let asNobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    static let canRunAsNobody = getuid() == 0 && FileManager.default.isExecutableFile(atPath: asNobody[0])

    static let pythonGPS: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import gps"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}
