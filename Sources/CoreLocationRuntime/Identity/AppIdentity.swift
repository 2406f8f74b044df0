import Foundation
import Logging

/// Who the running program is, and what its Info.plist says — the Linux stand-in for an app bundle.
///
/// The one place both Core Location and Foundation's `Bundle.main` read is the Info.plist that
/// swift-corelibs-foundation finds for the executable's directory (its "flat bundle"): `Info.plist`
/// beside the executable, or `Resources/Info.plist` when a `Resources/` directory is there (then
/// the file beside the executable is ignored), or `Contents/Info.plist` when `Contents/` is there.
/// Core Location takes the first of:
/// 1. the file named by `$CORELOCATION_INFO_PLIST`;
/// 2. `<executable>-Info.plist` beside the executable (e.g. `/usr/bin/myapp-Info.plist`);
/// 3. `Bundle.main.infoDictionary` (the one place above).
/// 1 and 2 are for Core Location only: when one of them is used and `Bundle.main` lacks its
/// `NSLocation…` keys, one notice says so (code that reads `Bundle.main` will not see them).
///
/// The identity is `CFBundleIdentifier` from that plist, else the executable's absolute path, so
/// two programs never share a decision by accident. See docs/decisions/0003-authorization-on-linux.md
/// and 0013-info-plist-delegates-services.md.
package struct AppIdentity: Sendable, Hashable {
    /// The key decisions are stored under.
    package var id: String
    /// The name shown in prompts: CFBundleDisplayName, CFBundleName, else the executable's name.
    package var displayName: String
    /// Where the Info.plist came from, if any.
    package var infoPlistPath: String?
    /// String values of the plist that matter to Core Location.
    package var info: [String: String]
    /// `NSLocationTemporaryUsageDescriptionDictionary`.
    package var temporaryUsageDescriptions: [String: String]
    /// `UIBackgroundModes`: `location` lets `allowsBackgroundLocationUpdates` be set (decision 0047).
    package var backgroundModes: Set<String>

    package static let whenInUseKey = "NSLocationWhenInUseUsageDescription"
    package static let alwaysKey = "NSLocationAlwaysAndWhenInUseUsageDescription"
    package static let temporaryKey = "NSLocationTemporaryUsageDescriptionDictionary"
    package static let defaultAccuracyKey = "NSLocationDefaultAccuracyReduced"
    package static let backgroundModesKey = "UIBackgroundModes"

    package var whenInUseDescription: String? { info[Self.whenInUseKey].flatMap { $0.isEmpty ? nil : $0 } }
    package var alwaysDescription: String? { info[Self.alwaysKey].flatMap { $0.isEmpty ? nil : $0 } }
    /// `NSLocationDefaultAccuracyReduced`: the app asks for reduced accuracy by default.
    package var prefersReducedAccuracy: Bool { info[Self.defaultAccuracyKey] == "true" }

    package init(
        id: String, displayName: String, infoPlistPath: String? = nil, info: [String: String] = [:],
        temporaryUsageDescriptions: [String: String] = [:], backgroundModes: Set<String> = []
    ) {
        self.id = id
        self.displayName = displayName
        self.infoPlistPath = infoPlistPath
        self.info = info
        self.temporaryUsageDescriptions = temporaryUsageDescriptions
        self.backgroundModes = backgroundModes
    }

    /// Resolves the running program's identity.
    ///
    /// - Parameter bundleInfo: what `Bundle.main` reads (its `infoDictionary`); tests pass their own.
    package static func current(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        bundleInfo: [String: Any]? = Bundle.main.infoDictionary,
        logger: Logger = Logger(label: "corelocation")
    ) -> AppIdentity {
        let executable = executablePath()
        let executableName = (executable as NSString).lastPathComponent
        let directory = (executable as NSString).deletingLastPathComponent
        var candidates: [String] = []
        if let explicit = environment["CORELOCATION_INFO_PLIST"], !explicit.isEmpty { candidates.append(explicit) }
        candidates.append("\(directory)/\(executableName)-Info.plist")

        for path in candidates where FileManager.default.fileExists(atPath: path) {
            do {
                let plist = try loadPlist(at: path)
                noticeIfBundleMainDiffers(plist: plist, path: path, bundleInfo: bundleInfo ?? [:], logger: logger)
                return make(plist: plist, path: path, executable: executable)
            } catch {
                logger.warning("Cannot read Info.plist", metadata: ["path": "\(path)", "error": "\(error)"])
            }
        }
        if let bundleInfo, !bundleInfo.isEmpty {
            let path = foundationInfoPlistPath(executableDirectory: directory)
            return make(plist: bundleInfo, path: path, executable: executable)
        }
        ignoredInfoPlistNotice(executableDirectory: directory, logger: logger)
        return AppIdentity(id: executable, displayName: executableName)
    }

    package static func loadPlist(at path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        guard let dictionary = object as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        return dictionary
    }

    package static func make(plist: [String: Any], path: String?, executable: String) -> AppIdentity {
        var info: [String: String] = [:]
        for (key, value) in plist {
            if let string = value as? String {
                info[key] = string
            } else if let flag = value as? Bool {
                info[key] = flag ? "true" : "false"
            }
        }
        let temporary = (plist[temporaryKey] as? [String: Any])?.compactMapValues { $0 as? String } ?? [:]
        let modes = Set((plist[backgroundModesKey] as? [Any])?.compactMap { $0 as? String } ?? [])
        let executableName = (executable as NSString).lastPathComponent
        let id = info["CFBundleIdentifier"].flatMap { $0.isEmpty ? nil : $0 } ?? executable
        let name = info["CFBundleDisplayName"] ?? info["CFBundleName"] ?? executableName
        return AppIdentity(
            id: id, displayName: name, infoPlistPath: path, info: info, temporaryUsageDescriptions: temporary,
            backgroundModes: modes)
    }

    /// The absolute path of the running executable (`/proc/self/exe` on Linux).
    package static func executablePath() -> String {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return resolved
        }
        let argument = CommandLine.arguments.first ?? "unknown"
        if argument.hasPrefix("/") { return argument }
        return FileManager.default.currentDirectoryPath + "/" + argument
    }
}
