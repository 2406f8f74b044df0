import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// Issue 37, item 6: one uid may hold only so many connections (decision 0086). The tests run as one uid, so
/// the cap is lowered to 3: the 4th connection is refused at once with one error frame, and a connection
/// freed by a close lets the next one in.
@Suite(.serialized) struct ConnectionLimitTests {
    @Test func theCapRefusesTheNextConnectionOfTheSameUser() async throws {
        let harness = try DaemonHarness()
        try await harness.start(["--simulate", "48.8584,2.2945", "--max-connections-per-uid", "3"])
        var held: [DaemonConnection] = []
        defer { for connection in held { connection.close() } }
        // The harness's own probe connection may still be closing: wait until three are held.
        let filled = await Polling.until(timeout: 10, every: 0.05) {
            if let connection = try? DaemonConnection.connect(path: harness.socket, label: "held", timeout: 2) {
                held.append(connection)
            }
            return held.count == 3
        }
        #expect(filled)
        for connection in held {
            connection.startReading { _ in }
            #expect(try connection.request(.ping) == .ok)
        }

        let fd = try harness.rawSocket()
        defer { close(fd) }
        let (messages, closed) = DaemonHarness.readMessages(fd)
        #expect(closed)
        var refusal: DaemonError?
        for case let .error(error) in messages { refusal = error }
        let error = try #require(refusal)
        #expect(error.code == .notPermitted)
        #expect(error.fatal)
        #expect(error.message.contains("3 connections"))

        // The held connections were not disturbed; one closing frees a place.
        #expect(try held[0].request(.ping) == .ok)
        held.removeLast().close()
        let admitted = await Polling.until(timeout: 10, every: 0.05) {
            let connection = try? DaemonConnection.connect(path: harness.socket, label: "again", timeout: 2)
            guard let connection else { return false }
            held.append(connection)
            return true
        }
        #expect(admitted)
    }
}
