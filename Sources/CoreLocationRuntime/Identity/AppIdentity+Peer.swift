import Foundation
import Logging

extension AppIdentity {
    /// The identity of another process, as locationd resolves it: `executable` comes from the
    /// kernel (`/proc/PID/exe`); `infoPlist` is the process's `CORELOCATION_INFO_PLIST` read from
    /// `/proc/PID/environ` (honoured only for processes of the daemon's own user; see decision 0011).
    /// The candidates are the same as `current(environment:logger:)`'s. Each is read by `ClientInfoPlist`
    /// (a regular file of at most 64 KiB owned by `owner` or root, decision 0069); a refused one is passed over
    /// as if it were not there, and the log says why. Blocking file reads: never call this on an event loop.
    package static func resolve(executable: String, infoPlist: String?, owner: UInt32, logger: Logger) -> AppIdentity {
        let executableName = (executable as NSString).lastPathComponent
        let directory = (executable as NSString).deletingLastPathComponent
        var candidates: [String] = []
        if let infoPlist, !infoPlist.isEmpty { candidates.append(infoPlist) }
        candidates.append("\(directory)/\(executableName)-Info.plist")
        candidates.append("\(directory)/Info.plist")
        for path in candidates {
            switch ClientInfoPlist.read(at: path, owner: owner) {
            case let .success(fields):
                return make(plist: fields.dictionary, path: path, executable: executable)
            case .failure(.absent):
                continue
            case let .failure(refusal):
                logger.warning(
                    "A client's Info.plist is refused; the app is named as if it had none there",
                    metadata: ["path": "\(path.escapedForLog)", "reason": "\(refusal)", "uid": "\(owner)"])
            }
        }
        return AppIdentity(id: executable, displayName: executableName)
    }
}

extension AppIdentity {
    /// locationctl is an app like any other: it asks for authorization under the name `locationctl`
    /// (in process, and through locationd, which recognises the locationctl installed beside it).
    package static let locationctl = AppIdentity(
        id: "locationctl",
        displayName: "locationctl",
        info: [
            "NSLocationWhenInUseUsageDescription": "locationctl prints your location in this terminal.",
            "NSLocationAlwaysAndWhenInUseUsageDescription": "locationctl prints your location in this terminal.",
        ]
    )

    /// `locationctl report` run live: the position-sharing app (issue 12), which keeps reporting while it is
    /// not running. Through locationd it is its own app, not `locationctl`: it has its own authorization,
    /// and it is the one command of locationctl that gets a launch target, so the daemon starts it again
    /// (decision 0045). In process it is `locationctl`.
    package static let locationctlReporter = AppIdentity(
        id: "locationctl.report",
        displayName: "locationctl report",
        info: [
            "NSLocationWhenInUseUsageDescription": "locationctl report shares your position with the server you named.",
            "NSLocationAlwaysAndWhenInUseUsageDescription":
                "locationctl report shares your position with the server you named, also while it is not running: "
                + "it is started again when you move.",
        ]
    )
}
