import CoreLocationDaemonProtocol
import Foundation
import Testing

/// docs/locationd-protocol.md against the code: every line of its ```json blocks is a message one side
/// reads, and encoding what was read gives the same JSON (no key the types drop or rename, no value they
/// change); every line of its ```json-v1 blocks is recognised as version 1. So the page cannot drift.
@Suite struct ProtocolDocumentTests {
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/locationd-protocol.md"), encoding: .utf8)) ?? ""
    }()

    /// The lines of the blocks fenced with ```` ```tag ````.
    static func lines(of tag: String) -> [String] {
        var lines: [String] = []
        var inside = false
        for line in document.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if inside {
                if trimmed == "```" { inside = false } else if !trimmed.isEmpty { lines.append(trimmed) }
            } else if trimmed == "```" + tag {
                inside = true
            }
        }
        return lines
    }

    /// The JSON as a value to compare: keys in any order, numbers by value.
    static func value(_ bytes: [UInt8]) throws -> NSObject {
        try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSObject)
    }

    /// Read as `Message` and written again, the line's JSON; nil when it is not such a message.
    static func reencoded<Message: Codable>(_ type: Message.Type, _ line: String) -> [UInt8]? {
        guard let message = try? DaemonProtocol.decode(Message.self, from: Array(line.utf8)) else { return nil }
        return try? DaemonProtocol.encode(message)
    }

    @Test func theDocumentHasExamplesOfEveryKind() {
        let lines = Self.lines(of: "json")
        // Requests (27 types and 13 commands), replies, events, hellos and errors: a few dozen lines at least.
        #expect(lines.count >= 70)
        for type in ["hello", "request", "reply", "event", "error"] {
            #expect(lines.contains { $0.hasPrefix(#"{"type":"\#(type)""#) }, "no \(type) example")
        }
    }

    @Test func everyJSONLineIsAMessageThatEncodesToTheSameJSON() throws {
        for line in Self.lines(of: "json") {
            let written = try Self.value(Array(line.utf8))
            let asClient = try Self.reencoded(ClientMessage.self, line).map(Self.value)
            let asDaemon = try Self.reencoded(DaemonMessage.self, line).map(Self.value)
            #expect(asClient == written || asDaemon == written, "not a message as written: \(line)")
        }
    }

    @Test func theVersion1ExamplesAreRecognisedAsVersion1() {
        let lines = Self.lines(of: "json-v1")
        #expect(lines.count == 2)
        for line in lines {
            #expect(DaemonProtocol.version1(of: Array(line.utf8)) == 1, "\(line)")
            #expect((try? DaemonProtocol.decode(ClientMessage.self, from: Array(line.utf8))) == nil)
            #expect((try? DaemonProtocol.decode(DaemonMessage.self, from: Array(line.utf8))) == nil)
        }
    }
}
