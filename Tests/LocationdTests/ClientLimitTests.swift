import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// Issue 37, item 2: one connection, and one app, may register only so many engine clients (decision 0086);
/// the register past the limit is refused with the protocol's error reply and the connection keeps working.
@Suite(.serialized) struct ClientLimitTests {
    func register(_ connection: DaemonConnection, _ client: UInt64) throws -> DaemonReply {
        try connection.request(.register(client: client, label: "c\(client)"))
    }

    @Test func theConnectionsLimitRefusesThe257thClient() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let connection = try DaemonConnection.connect(path: harness.socket, label: "many", timeout: 5)
        connection.startReading { _ in }
        for client in UInt64(1)...256 {
            #expect(try register(connection, client) == .ok)
        }
        guard case let .failure(error) = try register(connection, 257) else {
            Issue.record("the 257th client was accepted")
            return
        }
        #expect(error.code == .notPermitted)
        #expect(!error.fatal)
        // Registering a number again replaces its client: not a new one, never refused.
        #expect(try register(connection, 7) == .ok)
        #expect(try connection.request(.ping) == .ok)
        guard case let .status(status) = try connection.request(.status) else { Issue.record("no status"); return }
        // Listed and counted: a status lists 128 clients at most (StatusBoundTests).
        let held = status.apps.map { $0.clients.count + ($0.omittedClients ?? 0) }.reduce(0, +)
        #expect(held == 256)
        connection.close()
    }

    @Test func theAppsLimitCountsEveryConnection() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        var connections: [DaemonConnection] = []
        defer { for connection in connections { connection.close() } }
        for index in 0..<4 {
            let connection = try DaemonConnection.connect(path: harness.socket, label: "app\(index)", timeout: 5)
            connection.startReading { _ in }
            connections.append(connection)
            for client in UInt64(1)...256 { #expect(try register(connection, client) == .ok) }
        }
        let fifth = try DaemonConnection.connect(path: harness.socket, label: "fifth", timeout: 5)
        fifth.startReading { _ in }
        connections.append(fifth)
        guard case let .failure(error) = try register(fifth, 1) else {
            Issue.record("the app's 1 025th client was accepted")
            return
        }
        #expect(error.code == .notPermitted)
        // A closed connection's clients all go (in one engine step): the app may register again.
        connections[0].close()
        let freed = await Polling.until(timeout: 10, every: 0.05) {
            (try? self.register(fifth, 1)) == .ok
        }
        #expect(freed)
        guard case let .status(status) = try fifth.request(.status) else { Issue.record("no status"); return }
        // Listed and counted: a status lists 128 clients at most (StatusBoundTests).
        let held = status.apps.map { $0.clients.count + ($0.omittedClients ?? 0) }.reduce(0, +)
        #expect(held == 769)  // three full connections and the fifth's one
    }
}
