import CoreLocationStorage
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension LaunchTarget {
    /// Environment variables of the app's process kept for its relaunch: how it finds the daemon
    /// and its Info.plist (`CORELOCATION_*` but the reporter's credentials), where its files are (`HOME`, `XDG_*`),
    /// `PATH` and the locale. Nothing else of the process's environment is stored.
    static func keeps(_ name: String) -> Bool {
        // The reporter's server password is never stored (issue 37): a relaunched reporter reads its --credentials
        // file instead.
        if name == "CORELOCATION_LAUNCH_REASON" || name == "CORELOCATION_REPORT_CREDENTIALS" { return false }
        return name.hasPrefix("CORELOCATION_") || name.hasPrefix("XDG_")
            || ["HOME", "PATH", "LANG", "LC_ALL", "USER", "LOGNAME", "TMPDIR"].contains(name)
    }

    /// The Info.plist key naming a systemd user unit that starts the app (decision 0026).
    static let unitKey = "CoreLocationRelaunchUnit"

    /// How to start the process `pid` again, read from /proc (the kernel's word, not the app's):
    /// its executable, argv[1...], working directory and kept environment. Nil when the process
    /// went or its executable cannot be examined.
    static func of(pid: Int32, uid: UInt32, appID: String, executable: String, now: Double) -> LaunchTarget? {
        guard !executable.hasSuffix(" (deleted)"), let fingerprint = FileFingerprint.of(executable) else { return nil }
        guard let arguments = PeerIdentity.arguments(of: pid) else { return nil }
        let cwd = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/cwd")) ?? "/"
        let environment = PeerIdentity.environment(of: pid).filter { keeps($0.key) }
        let unit = environment["CORELOCATION_INFO_PLIST"].flatMap(Self.unit(infoPlist:))
        return LaunchTarget(
            uid: uid, appID: appID, executable: executable, arguments: arguments, workingDirectory: cwd,
            environment: environment, unit: unit, fingerprint: fingerprint, registeredAt: now)
    }

    static func unit(infoPlist path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path),
            let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any],
            let unit = plist[unitKey] as? String, !unit.isEmpty
        else { return nil }
        return unit
    }

    /// Why the target must not be launched now, or nil: the executable must be the file that
    /// registered (same device, inode, size, modification time and owner), and the target the
    /// daemon's user's.
    func refusal(daemonUID: UInt32) -> String? {
        if uid != daemonUID { return "other-user" }
        guard let now = FileFingerprint.of(executable) else { return "missing" }
        if now != fingerprint { return "replaced" }
        return nil
    }
}

extension FileFingerprint {
    /// The file's fingerprint (following no symbolic link: /proc/PID/exe names the real file).
    static func of(_ path: String) -> FileFingerprint? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & mode_t(S_IFMT)) == mode_t(S_IFREG) else { return nil }
        let modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return FileFingerprint(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: modified,
            owner: info.st_uid)
    }
}
