import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationGPSDTestSupport
import CoreLocationRuntime
import Foundation
import Testing

/// One fix fanned out to many clients (decision 0042): the daemon encodes a delivery once per app and
/// writes the same bytes to each of the app's connections, through one queue per event loop. Each
/// connection must still get every fix, under its own client number, and each app at its own accuracy.
@Suite(.serialized) struct FanOutTests {
    /// Eight connections of one app (this test process), each with its own client number, and two apps
    /// in their own processes: one with full accuracy, one reduced. All hear the same simulated point.
    @Test func everyConnectionGetsEachFixAndEachAppItsAccuracy() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945"])
        let fine = try harness.infoPlist(bundle: "org.example.fine")
        let coarse = try harness.infoPlist(bundle: "org.example.coarse")
        #expect(try await harness.run("locationctl", ["authorize", "org.example.fine", "when-in-use"]).status == 0)
        #expect(try await harness.run("locationctl", ["authorize", "org.example.coarse", "when-in-use", "--reduced"]).status == 0)

        // The test process's app: say hello on each connection, authorize the app, then start updates.
        let clients = 8
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        var app = ""
        for _ in 0..<clients {
            let fd = try harness.rawSocket()
            sockets.append(fd)
            #expect(UnixSocket.writeAll(fd, try DaemonHarness.hello()))
            let (messages, _) = try await Polling.onOwnThread { DaemonHarness.readMessages(fd, limit: 1) }
            guard case let .hello(hello)? = messages.first else {
                Issue.record("no hello: \(messages)")
                return
            }
            app = hello.app
        }
        #expect(try await harness.run("locationctl", ["authorize", app, "when-in-use"]).status == 0)
        for (index, fd) in sockets.enumerated() {
            // Client numbers differ per connection: the shared encoding must not share them.
            let client = ClientID(UInt64(index + 1))
            let register = ClientMessage.request(id: 1, body: .register(client: client.rawValue, label: "fan-out"))
            let start = ClientMessage.request(
                id: 2, body: .command(client: client.rawValue, command: .startUpdates(WireUpdateRequest(UpdateRequest()))))
            #expect(UnixSocket.writeAll(fd, try DaemonProtocol.frame(register) + DaemonProtocol.frame(start)))
        }

        let fineApp = try RunningApp(harness, ["updates", "--seconds", "20"], extra: ["CORELOCATION_INFO_PLIST": fine])
        let coarseApp = try RunningApp(harness, ["updates", "--seconds", "20"], extra: ["CORELOCATION_INFO_PLIST": coarse])

        for (index, fd) in sockets.enumerated() {
            let deliveries = try await Polling.onOwnThread { Self.deliveries(fd, count: 2) }
            #expect(deliveries.count == 2, "connection \(index): \(deliveries)")
            for (client, delivery) in deliveries {
                #expect(client == ClientID(UInt64(index + 1)))
                #expect(!delivery.accuracyLimited)
                #expect(abs((delivery.fixes.first?.latitude ?? 0) - 48.8584) < 1e-9)
                #expect(abs((delivery.fixes.first?.longitude ?? 0) - 2.2945) < 1e-9)
            }
        }

        #expect(await fineApp.wait { $0.contains { $0.hasPrefix("location ") } }, "\(fineApp.lines.withLock { $0 })")
        #expect(await coarseApp.wait { $0.contains { $0.hasPrefix("location ") } }, "\(coarseApp.lines.withLock { $0 })")
        let fineLocations = fineApp.lines.withLock { $0.filter { $0.hasPrefix("location ") } }
        let coarseLocations = coarseApp.lines.withLock { $0.filter { $0.hasPrefix("location ") } }
        #expect(fineLocations.allSatisfy { $0.hasSuffix(" 48.858400 2.294500") }, "\(fineLocations)")
        // Reduced accuracy: the centre of a grid cell, never the point itself.
        #expect(!coarseLocations.isEmpty && coarseLocations.allSatisfy { !$0.hasSuffix(" 48.858400 2.294500") }, "\(coarseLocations)")
        await fineApp.stop()
        await coarseApp.stop()
    }

    /// Hundreds of connections at once: each one's socket is looked up among the daemon's descriptors
    /// at hello (`DirectSocket`), and each is answered. (Reading whole `dirent`s there once crashed
    /// the daemon past a few hundred descriptors.)
    @Test func hundredsOfConnectionsAreEachAnswered() async throws {
        let harness = try DaemonHarness()
        // One uid holds all 400: above the per-uid cap (decision 0086), which this test is not about.
        try await harness.start(["--simulate", "48.8584,2.2945", "--max-connections-per-uid", "1000"])
        var sockets: [Int32] = []
        defer { sockets.forEach { close($0) } }
        for _ in 0..<400 {
            let fd = try harness.rawSocket()
            sockets.append(fd)
            #expect(UnixSocket.writeAll(fd, try DaemonHarness.hello()))
        }
        let opened = sockets
        let answered = try await Polling.onOwnThread { () -> Int in
            var answered = 0
            for fd in opened {
                let status = try DaemonProtocol.frame(ClientMessage.request(id: 7, body: .status))
                guard UnixSocket.writeAll(fd, status) else { continue }
                let (messages, _) = DaemonHarness.readMessages(fd, limit: 2)
                if messages.contains(where: { if case .reply(7, .status) = $0 { true } else { false } }) { answered += 1 }
            }
            return answered
        }
        #expect(answered == 400)
    }

    /// Reads frames (blocking, bounded by a 10 s receive timeout) until `count` deliveries came.
    static func deliveries(_ fd: Int32, count: Int) -> [(ClientID, Delivery)] {
        UnixSocket.setReceiveTimeout(fd, seconds: 10)
        var decoder = FrameDecoder()
        var found: [(ClientID, Delivery)] = []
        for _ in 0..<100 {
            while let frame = try? decoder.next() {
                if case let .event(_, .client(client, .delivery(delivery)))? = try? DaemonProtocol.decode(
                    DaemonMessage.self, from: frame)
                {
                    found.append((ClientID(client), Delivery(delivery)))
                }
            }
            if found.count >= count { break }
            let bytes = UnixSocket.readSome(fd)
            if bytes.isEmpty { break }
            decoder.append(bytes)
        }
        // The first `count`: on a slow run one read can bring the next fixes too.
        return Array(found.prefix(count))
    }
}
