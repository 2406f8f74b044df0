import CoreLocationDaemonProtocol
import Foundation
import Testing

/// Issue 37, item 9: a client's text in locationd's log cannot start a line of its own.
@Suite struct LogEscapingTests {
    @Test func aLabelWithANewlineStaysOnItsLine() async throws {
        let harness = try DaemonHarness()
        try await harness.start()
        let label = "probe\nlocationd : [critical] forged\u{1B}[2J\\n"
        let connection = try DaemonConnection.connect(path: harness.socket, label: label, timeout: 5)
        defer { connection.close() }
        let escaped = "label=probe\\nlocationd : [critical] forged\\u{1b}[2J\\\\n"
        #expect(await harness.logContains(escaped, timeout: 60), "\(harness.logText)")
        let lines = harness.logText.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("locationd : [critical] forged") })
        #expect(!harness.logText.contains("\u{1B}"))
    }
}
