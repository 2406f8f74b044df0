import Foundation
import Logging
import Synchronization

/// Set once the notice about an Info.plist that `Bundle.main` does not see has been logged.
private let bundleNoticeLogged = Atomic<Bool>(false)

extension AppIdentity {
    /// The file swift-corelibs-foundation reads as `Bundle.main`'s Info.plist for an executable in
    /// `directory` (measured on Swift 6.3, see docs/decisions/0013-info-plist-delegates-services.md):
    /// `Contents/Info.plist` when `Contents/` exists, else `Resources/Info.plist` when `Resources/`
    /// exists, else `Info.plist` beside the executable.
    package static func foundationInfoPlistPath(executableDirectory directory: String) -> String {
        var isDirectory: ObjCBool = false
        for folder in ["Contents", "Resources"] {
            let path = "\(directory)/\(folder)"
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                return "\(path)/Info.plist"
            }
        }
        return "\(directory)/Info.plist"
    }

    /// The `NSLocation…` keys of `plist` that `bundleInfo` does not hold with the same value.
    package static func locationKeysMissing(from bundleInfo: [String: Any], plist: [String: Any]) -> [String] {
        plist.keys.filter { key in
            guard key.hasPrefix("NSLocation") else { return false }
            guard let seen = bundleInfo[key] else { return true }
            return !isEqual(seen, plist[key])
        }.sorted()
    }

    /// Logs, once per process, that the Info.plist Core Location uses is not the one `Bundle.main`
    /// reads, and how to make them one.
    package static func noticeIfBundleMainDiffers(
        plist: [String: Any], path: String, bundleInfo: [String: Any], logger: Logger
    ) {
        let missing = locationKeysMissing(from: bundleInfo, plist: plist)
        guard !missing.isEmpty else { return }
        guard !bundleNoticeLogged.exchange(true, ordering: .relaxed) else { return }
        let executable = executablePath()
        let target = foundationInfoPlistPath(executableDirectory: (executable as NSString).deletingLastPathComponent)
        logger.notice(
            """
            Core Location reads the usage descriptions from \(path), but Bundle.main does not see them, so code \
            that checks Bundle.main (as many location wrappers do) will not ask for authorization. Put the file \
            where Foundation reads it: \(target) (`locationctl plist install` copies it beside a built product).
            """,
            metadata: ["path": "\(path)", "missing": "\(missing.joined(separator: ","))", "expected": "\(target)"]
        )
    }

    /// Logs, once per process, that an `Info.plist` beside the executable is ignored by Foundation
    /// (and so by Core Location) because a `Resources/` or `Contents/` directory is there.
    package static func ignoredInfoPlistNotice(executableDirectory directory: String, logger: Logger) {
        let beside = "\(directory)/Info.plist"
        let read = foundationInfoPlistPath(executableDirectory: directory)
        guard read != beside, FileManager.default.fileExists(atPath: beside) else { return }
        guard !bundleNoticeLogged.exchange(true, ordering: .relaxed) else { return }
        logger.notice(
            """
            \(beside) is ignored: with a \((read as NSString).deletingLastPathComponent) directory beside the \
            executable, Foundation (and Core Location) read \(read). Move the file there.
            """,
            metadata: ["path": "\(beside)", "expected": "\(read)"]
        )
    }

    private static func isEqual(_ lhs: Any, _ rhs: Any?) -> Bool {
        switch (lhs, rhs) {
        case let (left as String, right as String): return left == right
        case let (left as Bool, right as Bool): return left == right
        case let (left as [String: String], right as [String: String]): return left == right
        case let (left as NSObject, right as NSObject): return left.isEqual(right)
        default: return false
        }
    }
}
