import Foundation

/// One line of CoreLocationProbe's output: `KIND POSITIONAL… key=value…`.
struct ProbeLine {
    var kind: String
    var values: [String]
    var fields: [String: String]

    init?(_ line: String) {
        let parts = line.split(separator: " ").map(String.init)
        guard let kind = parts.first else { return nil }
        self.kind = kind
        values = []
        fields = [:]
        for part in parts.dropFirst() {
            if let equals = part.firstIndex(of: "=") {
                fields[String(part[..<equals])] = String(part[part.index(after: equals)...])
            } else {
                values.append(part)
            }
        }
    }

    func flag(_ name: String) -> Bool? {
        switch fields[name] {
        case "true"?: true
        case "false"?: false
        default: nil
        }
    }

    /// The lines that report a delegate call.
    static let delegateKinds: Set<String> = ["authorization", "location", "error"]
}

extension ToolRun {
    var probeLines: [ProbeLine] { lines.compactMap(ProbeLine.init) }
    var delegateCalls: [ProbeLine] { probeLines.filter { ProbeLine.delegateKinds.contains($0.kind) } }
    /// The statuses the authorization calls reported, in order.
    var authorizationStatuses: [Int] {
        probeLines.filter { $0.kind == "authorization" }.compactMap { $0.values.first.flatMap(Int.init) }
    }
}

extension Sandbox {
    /// Writes an XML Info.plist with these string keys and returns its path.
    func writeInfoPlist(_ keys: [String: String], name: String = "Info.plist") throws -> String {
        let entries = keys.sorted { $0.key < $1.key }
            .map { "    <key>\($0.key)</key><string>\($0.value)</string>" }
            .joined(separator: "\n")
        return try write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \(entries)
            </dict>
            </plist>

            """,
            to: name
        )
    }
}
