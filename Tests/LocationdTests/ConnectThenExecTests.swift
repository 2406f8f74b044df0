import CoreLocationDaemonProtocol
import Foundation
import Testing

/// Issue 37, item 11 (decision 0011, connect-then-exec): the daemon reads a connection's executable after
/// `connect()`, so a process could write its hello and Settings requests and then exec `locationctl` before that
/// read. Settings requests now count only after the client echoed its hello's `token`, which the daemon makes after
/// the read. Here the daemon takes python3 as its Settings executable (`CORELOCATION_SETTINGS_EXECUTABLE`, as a
/// process that became `locationctl` by exec would read), and a Python client writes `authorize` either before the
/// hello came (queued, as before an exec) or after echoing the token.
@Suite(.enabled(if: RawClient.isAvailable, "needs python3 (Debian package python3)"))
struct ConnectThenExecTests {
    static let script = RawClient.framing + #"""
        mode, hello, request = sys.argv[2:5]
        if mode == "queued":
            # Everything written before the daemon's hello could be read, as a process does before it execs.
            s.sendall(frame(hello) + frame(request))
            print(receive(), flush=True)
        else:
            s.sendall(frame(hello))
            server = receive()
            print(server, flush=True)
            token = json.loads(server).get("token", "")
            confirm = {"type": "request", "id": 99, "body": {"type": "confirmIdentity", "token": token}}
            s.sendall(frame(json.dumps(confirm)) + frame(request))
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
}
