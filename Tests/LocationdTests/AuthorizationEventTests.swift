import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationRuntime
import Foundation
import Synchronization
import Testing

/// What a connection of an app hears when the person changes its decision: one sequenced
/// authorization event per change, never two (the duplicate a client saw after the merge).
@Suite struct AuthorizationEventTests {
    @Test func oneDecisionIsOneEvent() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let events = Mutex<[ClientAuthorization]>([])
        let connection = try DaemonConnection.connect(path: harness.socket, label: "events", timeout: 5)
        connection.startReading { message in
            if case let .event(sequence, .authorization(authorization, _)) = message {
                events.withLock { $0.append(ClientAuthorization(authorization)) }
                if let sequence { connection.send(.acknowledge(sequence: sequence)) }
            }
        }
        defer { connection.close() }
        // This process is the app, named by its executable (no Info.plist for a test runner).
        let app = connection.hello.app
        let deny = try await harness.run("locationctl", ["authorize", app, "deny"])
        #expect(deny.status == 0, "\(deny)")
        let allow = try await harness.run("locationctl", ["authorize", app, "always"])
        #expect(allow.status == 0, "\(allow)")
        // authorize returns after the acknowledgement: both events are in.
        #expect(events.withLock { $0.map(\.level) } == [.denied, .always])
        let again = try await harness.run("locationctl", ["authorize", app, "always"])
        #expect(again.status == 0, "\(again)")
        // The same decision again changes nothing and tells nothing.
        #expect(events.withLock { $0.map(\.level) } == [.denied, .always])
    }
}
