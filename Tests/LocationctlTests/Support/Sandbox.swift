import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A temporary directory for one test, with the environment the tools run in: their own
/// authorization database, no terminal prompt, and nothing inherited from the developer's shell
/// (no CORELOCATION_* variable, no real home directory).
final class Sandbox {
    let directory: URL
    /// The variables every tool run gets; tests add their own per run.
    let environment: [String: String]

    var databasePath: String { directory.appendingPathComponent("corelocation.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("locationctl-e2e-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var environment = [
            "CORELOCATION_DATABASE": directory.appendingPathComponent("corelocation.sqlite").path,
            "CORELOCATION_PROMPT": "never",
            "HOME": directory.path,
            "XDG_DATA_HOME": directory.appendingPathComponent("data").path,
        ]
        environment["PATH"] = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        self.environment = environment
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes `text` to a file in the sandbox and returns its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Runs `tool` (or its copy at `executable`) in the sandbox with its environment plus `extra`.
    func run(
        _ tool: Tool, _ arguments: [String], extra: [String: String] = [:], executable: URL? = nil
    ) async throws -> ToolRun {
        var attempts = 0
        while true {
            do {
                return try await tool.run(
                    arguments, environment: environment.merging(extra) { _, new in new }, in: directory,
                    executable: executable)
            } catch where executable != nil && attempts < 40 && Self.isTextFileBusy(error) {
                // A copy just written can be "text file busy" for a moment: a process that a parallel test
                // forks while the copy's descriptor is open holds it until that process execs (Linux's
                // ETXTBSY race; the CI met it once). The copy is complete: run it again shortly.
                attempts += 1
                try await Task.sleep(for: .milliseconds(50))
            }
        }
    }

    static func isTextFileBusy(_ error: any Error) -> Bool {
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return error.code == Int(ETXTBSY) }
        return (error.userInfo[NSUnderlyingErrorKey] as? NSError).map(isTextFileBusy) ?? false
    }

    /// Runs `locationctl` in the sandbox.
    func locationctl(_ arguments: String..., extra: [String: String] = [:]) async throws -> ToolRun {
        try await run(.locationctl, arguments, extra: extra)
    }
}
