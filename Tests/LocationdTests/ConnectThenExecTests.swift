import CoreLocationDaemonProtocol
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 37, item 11 (decision 0011, connect-then-exec): the daemon reads a connection's executable after
/// `connect()`, so a process could write its hello and Settings requests and then exec `locationctl` before that
/// read. Settings requests now count only after the client echoed its hello's `token`, which the daemon makes after
/// the read. Here the daemon takes python3 as its Settings executable (`CORELOCATION_SETTINGS_EXECUTABLE`, as a
/// process that became `locationctl` by exec would read), and a Python client writes `authorize` either before the
/// hello came (queued, as before an exec) or after echoing the token.
@Suite(.enabled(if: RawClient.isAvailable, "needs python3 (Debian package python3)"))
struct ConnectThenExecTests {
    /// Reads the daemon's hello, echoes its token and sends `request` (the client's side of the token rule).
    static let confirming = #"""
        def confirm_then(request):
            server = receive()
            print(server, flush=True)
            token = json.loads(server).get("token", "")
            confirm = {"type": "request", "id": 99, "body": {"type": "confirmIdentity", "token": token}}
            s.sendall(frame(json.dumps(confirm)) + frame(request))

        """#

    static let script = RawClient.framing + confirming + #"""
        mode, hello, request = sys.argv[2:5]
        if mode == "queued":
            # Everything written before the daemon's hello could be read, as a process does before it execs.
            s.sendall(frame(hello) + frame(request))
            print(receive(), flush=True)
        else:
            s.sendall(frame(hello))
            confirm_then(request)
        while True:
            message = receive()
            if json.loads(message).get("type") == "reply":
                print(message, flush=True)
                break
        """#

    func authorize(_ harness: DaemonHarness, mode: String, app: String) async throws -> DaemonReply? {
        let hello = try RawClient.json(.hello(ClientHello(label: "raw")))
        let request = try RawClient.json(.request(id: 1, body: .authorize(app: app, decision: "always", accuracy: nil)))
        let run = try await harness.run(RawClient.python, ["-c", Self.script, harness.socket, mode, hello, request])
        for line in run.stdout.split(separator: "\n") {
            if case let .reply(_, body)? = try? DaemonProtocol.decode(DaemonMessage.self, from: Array(line.utf8)) {
                return body
            }
        }
        Issue.record("no reply: \(run)")
        return nil
    }

    @Test func settingsRequestsWrittenBeforeTheHelloDoNotCount() async throws {
        let harness = try DaemonHarness()
        try await harness.start(extra: ["CORELOCATION_SETTINGS_EXECUTABLE": IdentityThroughTheDaemonTests.python])

        // Written before the hello came: refused (on main: accepted, the daemon took the exec'd executable's word).
        let queued = try await authorize(harness, mode: "queued", app: "org.example.queued")
        guard case let .failure(error)? = queued else {
            Issue.record("a request written before the hello was accepted: \(String(describing: queued))")
            return
        }
        #expect(error.code == .notPermitted, "\(error)")

        // The same executable, the token echoed first: accepted, so the refusal above was the ordering.
        let confirmed = try await authorize(harness, mode: "confirmed", app: "org.example.confirmed")
        #expect(confirmed == .ok, "\(String(describing: confirmed))")

        let decisions = try await harness.run("locationctl", ["authorize", "--list"])
        #expect(decisions.stdout.contains("org.example.confirmed"), "\(decisions)")
        #expect(!decisions.stdout.contains("org.example.queued"), "\(decisions)")
    }

    /// Fork, then exec (decision 0100): the process that connects (P) writes its hello, forks, and execs the Settings
    /// executable; its child (C) keeps the socket, reads the daemon's hello and its token, echoes it and asks to
    /// `authorize` an app. The daemon is stopped (SIGSTOP) from before P connects until P has exec'd, so it reads P's
    /// executable after the exec, as an attacker who wins the race makes it: the connection is a Settings one. C's
    /// bytes are not P's, so the connection ends before they count. On main C's `authorize` was accepted.
    static let forkThenExec = RawClient.framing + confirming + #"""
        import os, signal, time
        daemon, settings, hello, request = int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
        s.sendall(frame(hello))
        if os.fork() != 0:
            os.execv(settings, [settings, "3"])
        parent = os.getppid()
        for _ in range(1000):
            try:
                if os.readlink("/proc/%d/exe" % parent) == settings:
                    break
            except OSError:
                pass
            time.sleep(0.01)
        print("exec'd: %s" % os.readlink("/proc/%d/exe" % parent), flush=True)
        os.kill(daemon, signal.SIGCONT)
        try:
            confirm_then(request)
            while True:
                message = json.loads(receive())
                if message.get("type") == "reply" and message.get("id") == 1:
                    print(json.dumps(message), flush=True)
                    break
        except (EOFError, OSError) as error:
            print("closed: %r" % error, flush=True)
        """#

    @Test func aForkedChildOfTheSettingsExecutableIsNotTheSettingsApp() async throws {
        // The Settings executable here is sleep: P execs it and it waits 3 s, long after the daemon read it.
        let settings = URL(fileURLWithPath: "/bin/sleep").resolvingSymlinksInPath().path
        let harness = try DaemonHarness()
        let daemon = try await harness.start(extra: ["CORELOCATION_SETTINGS_EXECUTABLE": settings])
        let pid = daemon.processIdentifier
        try #require(pid > 0)
        #expect(kill(pid, SIGSTOP) == 0)
        defer { kill(pid, SIGCONT) }
        let hello = try RawClient.json(.hello(ClientHello(label: "forked")))
        let request = try RawClient.json(
            .request(id: 1, body: .authorize(app: "org.example.forked", decision: "always", accuracy: nil)))
        let run = try await harness.run(
            RawClient.python, ["-c", Self.forkThenExec, harness.socket, "\(pid)", settings, hello, request])
        kill(pid, SIGCONT)
        #expect(run.stdout.contains("exec'd: \(settings)"), "\(run)")
        var reply: DaemonReply?
        for line in run.stdout.split(separator: "\n") {
            if case let .reply(_, body)? = try? DaemonProtocol.decode(DaemonMessage.self, from: Array(line.utf8)) {
                reply = body
            }
        }
        // Closed before the request counted (a `not-permitted` would do too): never accepted.
        if let reply {
            guard case let .failure(error) = reply else {
                Issue.record("the child's authorize was accepted: \(reply)")
                return
            }
            #expect(error.code == .notPermitted, "\(error)")
        } else {
            #expect(run.stdout.contains("closed"), "\(run)")
        }
        // It was taken for the Settings executable's connection (the race was won), and ended for C's bytes.
        #expect(await harness.logContains("another process than the one that connected"), "\(harness.logText)")

        // The genuine locationctl still authorizes; the child's app has no decision.
        let genuine = try await harness.run("locationctl", ["authorize", "org.example.genuine", "always"])
        #expect(genuine.status == 0, "\(genuine)")
        let decisions = try await harness.run("locationctl", ["authorize", "--list"])
        #expect(decisions.stdout.contains("org.example.genuine"), "\(decisions)")
        #expect(!decisions.stdout.contains("org.example.forked"), "\(decisions)")
    }
}
