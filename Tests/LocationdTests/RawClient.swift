import CoreLocationDaemonProtocol
import Foundation

/// A client that speaks the protocol by itself, as any program may: Python over the socket, its hello and
/// requests given, each reply printed. The daemon sees `python3` (an app like any other), with the environment
/// the test gives it; nothing in it reads the Info.plist that environment names.
struct RawClient {
    static let python = "/usr/bin/python3"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: python) }

    /// Python that connects to the socket named by its first argument and frames messages as the protocol does
    /// (`exactly`, `receive`, `frame`): the start of every raw client's script.
    static let framing = #"""
        import json, socket, struct, sys
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(20)
        s.connect(sys.argv[1])
        def exactly(n):
            data = b""
            while len(data) < n:
                chunk = s.recv(n - len(data))
                if not chunk:
                    raise EOFError
                data += chunk
            return data
        def receive():
            return exactly(struct.unpack(">I", exactly(4))[0]).decode()
        def frame(text):
            data = text.encode()
            return struct.pack(">I", len(data)) + data

        """#

    static let script = framing + #"""
        frames = sys.argv[2:]
        try:
            s.sendall(frame(frames[0]))
            print(receive(), flush=True)
            for text in frames[1:]:
                s.sendall(frame(text))
                while True:
                    message = receive()
                    if json.loads(message).get("type") == "reply":
                        print(message, flush=True)
                        break
        except (socket.timeout, EOFError) as error:
            print("failed: %r" % error, flush=True)
        """#

    /// Says `hello` then sends `requests` (ids 1, 2…); returns the daemon's hello and replies, in order.
    static func run(
        _ harness: DaemonHarness, hello: ClientHello = ClientHello(label: "raw"), requests: [DaemonRequest] = [],
        extra: [String: String] = [:]
    ) async throws -> (hello: ServerHello?, replies: [DaemonReply], output: String) {
        let frames = try [json(ClientMessage.hello(hello))]
            + requests.enumerated().map { try json(ClientMessage.request(id: UInt64($0.offset + 1), body: $0.element)) }
        let run = try await harness.run(python, ["-c", script, harness.socket] + frames, extra: extra)
        var serverHello: ServerHello?
        var replies: [DaemonReply] = []
        for line in run.stdout.split(separator: "\n") {
            guard let message = try? DaemonProtocol.decode(DaemonMessage.self, from: Array(line.utf8)) else { continue }
            switch message {
            case let .hello(hello): serverHello = hello
            case let .reply(_, body): replies.append(body)
            default: break
            }
        }
        return (serverHello, replies, run.stdout + run.stderr)
    }

    static func json(_ message: ClientMessage) throws -> String {
        String(decoding: try DaemonProtocol.encode(message), as: UTF8.self)
    }
}
