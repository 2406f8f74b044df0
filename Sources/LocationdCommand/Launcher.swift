import CoreLocationStorage
import Foundation
import Logging

/// Starts an app again for a background event (decision 0026). `exec` spawns the recorded
/// executable as a child of the daemon (tests, and daemons without a user session);
/// `systemd` asks the user's systemd to run it as a transient unit (`systemd-run --user`), or
/// starts the unit its Info.plist names; `none` never launches (events wait for the app).
enum Launcher: String, Sendable, CaseIterable {
    case exec
    case systemd
    case none

    /// The environment variable (and its value) that tells the app why it was started: the stand-in
    /// for `launchOptions[.location]` (`CLLocationManager.launchReason`).
    static let reasonVariable = "CORELOCATION_LAUNCH_REASON"
    static let reasonLocation = "location"

    /// `CORELOCATION_LAUNCH_LOG` opened for appending, when set and writable.
    static func launchLog() -> FileHandle? {
        guard let path = ProcessInfo.processInfo.environment["CORELOCATION_LAUNCH_LOG"], !path.isEmpty else { return nil }
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { return nil }
        handle.seekToEndOfFile()
        return handle
    }

    /// Starts `target`; returns the pid (exec) or 0 (systemd), or throws.
    func launch(_ target: LaunchTarget, logger: Logger) throws -> Int32 {
        var environment = target.environment
        environment[Self.reasonVariable] = Self.reasonLocation
        switch self {
        case .none:
            throw LaunchFailure(reason: "the launcher is none")
        case .exec:
            let process = Process()
            process.executableURL = URL(fileURLWithPath: target.executable)
            process.arguments = target.arguments
            process.currentDirectoryURL = URL(fileURLWithPath: target.workingDirectory)
            process.environment = environment
            process.standardInput = FileHandle.nullDevice
            // The app's output is discarded, unless the daemon's CORELOCATION_LAUNCH_LOG names a file to append
            // it to (why a launched app does not come up: its own words).
            let output = Self.launchLog().map { $0 as Any } ?? FileHandle.nullDevice
            process.standardOutput = output
            process.standardError = output
            try process.run()
            return process.processIdentifier
        case .systemd:
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-run")
            if let unit = target.unit {
                process.executableURL = URL(fileURLWithPath: "/usr/bin/systemctl")
                process.arguments = ["--user", "--no-block", "start", Self.instance(of: unit)]
            } else {
                process.arguments =
                    ["--user", "--collect", "--no-block", "--quiet", "--working-directory=\(target.workingDirectory)"]
                    + environment.sorted { $0.key < $1.key }.map { "--setenv=\($0.key)=\($0.value)" }
                    + ["--", target.executable] + target.arguments
            }
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw LaunchFailure(reason: "\(process.executableURL?.path ?? "systemd") exited with \(process.terminationStatus)")
            }
            return 0
        }
    }
}

extension Launcher {
    /// The unit to start for `unit` of an Info.plist: a template (`app@.service`) is started as its
    /// instance `location` (`app@location.service`), so the unit can hand the reason to the app with
    /// `Environment=CORELOCATION_LAUNCH_REASON=%i`; systemd has no way to give one start of a plain
    /// unit an environment, so an app started through a plain unit sees no launch reason.
    static func instance(of unit: String) -> String {
        guard let at = unit.firstIndex(of: "@"), unit[unit.index(after: at)...].hasPrefix(".") else { return unit }
        return unit[...at] + reasonLocation + unit[unit.index(after: at)...]
    }
}

struct LaunchFailure: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}

/// Bounds on relaunching (decision 0026): at most `limit` launches per `window` seconds per app;
/// after a launch the app has `pickup` seconds to take its events before the next try, doubling
/// per try without pickup up to `maximumBackoff`; events expire after `expiry` seconds.
struct RelaunchPolicy: Sendable {
    var limit = 5
    var window: Double = 60
    var pickup: Double = 10
    var maximumBackoff: Double = 300
    var expiry: Double = 3600
    /// Seconds after the daemon starts in which no app is launched: the processes that were
    /// connected to the daemon before it restarted are reconnecting (their links retry every
    /// quarter second at most), and launching one now would start a second copy that is sent the
    /// same pending events. locationd uses 2; 0 in the tests that drive the sweep by hand.
    var reconnectGrace: Double = 0

    enum Decision: Equatable {
        case launch
        case wait
        case rateLimited
    }

    /// Whether to launch at `now`, given the app's launch times and the launches since it last
    /// took its events.
    func decide(launches: [Double], unanswered: Int, now: Double) -> Decision {
        let recent = launches.filter { now - $0 < window }
        if recent.count >= limit { return .rateLimited }
        if let last = launches.last, unanswered > 0 {
            if now - last < backoff(unanswered) { return .wait }
        }
        return .launch
    }

    /// Seconds a launched app has to take its events after `unanswered` launches without pickup.
    func backoff(_ unanswered: Int) -> Double {
        min(pickup * Double(1 << min(max(unanswered - 1, 0), 20)), maximumBackoff)
    }

    /// The earliest time at or after `now` when `decide` answers `.launch` (nothing else changing):
    /// when enough launches left the window and the backoff ran out. Nil when it never does (a
    /// limit of 0). What the sweep sleeps until (decision 0039).
    func earliestLaunch(launches: [Double], unanswered: Int, now: Double) -> Double? {
        guard limit > 0 else { return nil }
        var earliest = now
        let recent = launches.filter { now - $0 < window }.sorted()
        if recent.count >= limit { earliest = max(earliest, recent[recent.count - limit] + window) }
        if let last = launches.last, unanswered > 0 { earliest = max(earliest, last + backoff(unanswered)) }
        return earliest
    }
}
