import Foundation
import Synchronization

extension Gazetteer {
    /// The resource's file name.
    public static let resourceName = "gazetteer.bin"
    /// Environment variable naming a gazetteer file to use instead of the bundled one.
    public static let pathEnvironmentKey = "CORELOCATION_GAZETTEER"

    private static let shared = Mutex<Result<Gazetteer, GeocodingError>?>(nil)

    /// The bundled gazetteer, loaded on first use and then shared; the outcome (including a failure) is
    /// kept, so a missing or corrupt file is reported the same way on every call without re-reading it.
    public static func bundled() throws(GeocodingError) -> Gazetteer {
        let result = shared.withLock { cached -> Result<Gazetteer, GeocodingError> in
            if let cached { return cached }
            let loaded: Result<Gazetteer, GeocodingError>
            do throws(GeocodingError) {
                loaded = .success(try load(from: try locateResource()))
            } catch {
                loaded = .failure(error)
            }
            cached = loaded
            return loaded
        }
        return try result.get()
    }

    /// Loads a gazetteer file. Throws `.resourceUnavailable` if it cannot be read, `.resourceCorrupt`
    /// if it is damaged.
    public static func load(from url: URL) throws(GeocodingError) -> Gazetteer {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw GeocodingError(.resourceUnavailable, "cannot read \(url.path): \(error.localizedDescription)")
        }
        return try Gazetteer(bytes: [UInt8](data))
    }

    /// Where the gazetteer is: `$CORELOCATION_GAZETTEER`, else the SwiftPM resource bundle next to the
    /// executable (`swift run`, `swift test`, an installed `locationctl` with its bundle beside it), else
    /// `/usr/local/share` and `/usr/share` (`swift-corelocation/gazetteer.bin`).
    ///
    /// `Bundle.module` is not used: its generated accessor stops the process when the bundle is missing.
    static func locateResource() throws(GeocodingError) -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let path = environment[pathEnvironmentKey], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        var directories: [URL] = []
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            directories.append(executable.deletingLastPathComponent())
        }
        directories.append(Bundle.main.bundleURL)
        if let argument = CommandLine.arguments.first, !argument.isEmpty {
            directories.append(URL(fileURLWithPath: argument).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        var candidates: [URL] = []
        for directory in directories {
            // SwiftPM names the bundle after the package identity, which is the name of the repository a
            // client depends on: take any `<identity>_CoreLocationGeocoding` bundle, ours first.
            let found = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            let others = found.filter { $0.hasSuffix("_CoreLocationGeocoding.resources") || $0.hasSuffix("_CoreLocationGeocoding.bundle") }
            let bundleNames = ["swift-corelocation_CoreLocationGeocoding.resources", "swift-corelocation_CoreLocationGeocoding.bundle"]
                + others.sorted()
            for bundle in bundleNames {
                candidates.append(directory.appendingPathComponent(bundle).appendingPathComponent(resourceName))
                candidates.append(directory.appendingPathComponent(bundle)
                    .appendingPathComponent("Contents/Resources").appendingPathComponent(resourceName))
            }
        }
        for prefix in ["/usr/local/share/swift-corelocation", "/usr/share/swift-corelocation"] {
            candidates.append(URL(fileURLWithPath: prefix).appendingPathComponent(resourceName))
        }
        for candidate in candidates where FileManager.default.isReadableFile(atPath: candidate.path) {
            return candidate
        }
        throw GeocodingError(
            .resourceUnavailable,
            "the gazetteer (\(resourceName)) was not found; set \(pathEnvironmentKey) to its path")
    }
}
