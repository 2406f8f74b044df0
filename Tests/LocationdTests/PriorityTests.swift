import Foundation
import Testing

/// Decision 0055: started as root, locationd runs its delivery path at nice −10, as gpsd gives itself.
@Suite struct PriorityTests {
    /// Each thread of `pid`: its name (/proc/PID/task/TID/comm) and nice value (stat, field 19).
    static func threads(of pid: Int32) -> [(name: String, nice: Int)] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            let directory = "/proc/\(pid)/task/\(task)/"
            guard let stat = try? String(contentsOfFile: directory + "stat", encoding: .utf8),
                let name = try? String(contentsOfFile: directory + "comm", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 16, let nice = Int(fields[16]) else { return nil }
            return (name.trimmingCharacters(in: .whitespacesAndNewlines), nice)
        }
    }

    /// The main thread and the event loop, made after the priority was set (it must inherit it). The
    /// threads of libdispatch's pool are not checked: libdispatch sets their priority from the work's
    /// QoS when it makes them (the CI met one at 0).
    @Test(.enabled(if: getuid() == 0, "needs root (a negative nice value)"))
    func theDeliveryPathRunsAtNiceMinusTen() async throws {
        let harness = try DaemonHarness()
        let daemon = try await harness.start(["--simulate", "drive"])
        let threads = Self.threads(of: daemon.processIdentifier)
        let named = threads.filter { $0.name == "locationd" || $0.name.hasPrefix("NIO-ELT") }
        #expect(named.contains { $0.name.hasPrefix("NIO-ELT") }, "\(threads)")
        #expect(named.contains { $0.name == "locationd" }, "\(threads)")
        #expect(named.allSatisfy { $0.nice == -10 }, "\(threads)")
    }
}
