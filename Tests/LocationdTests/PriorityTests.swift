import Foundation
import Testing

/// Decision 0055: started as root, every thread of locationd runs at nice −10, as gpsd gives itself.
@Suite struct PriorityTests {
    /// The nice value of each thread of `pid`, from /proc/PID/task/TID/stat (field 19).
    static func niceValues(of pid: Int32) -> [Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 16 ? Int(fields[16]) : nil
        }
    }

    @Test(.enabled(if: getuid() == 0)) func everyThreadRunsAtNiceMinusTen() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.start(["--simulate", "drive"])
        // A client makes the source's thread (made after start-up: it must inherit the value).
        let plist = try harness.infoPlist(bundle: "org.example.priority")
        let app = try RunningApp(harness, ["updates", "--seconds", "30"], extra: ["CORELOCATION_INFO_PLIST": plist])
        #expect(await app.wait { $0.contains { $0.hasPrefix("location ") } }, "\(app.lines.withLock { $0 })")
        await app.stop()
        let values = Self.niceValues(of: daemon.processIdentifier)
        #expect(values.count >= 3, "\(values)")
        #expect(values.allSatisfy { $0 == -10 }, "\(values)")
    }
}
