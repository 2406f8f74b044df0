import Foundation

/// `sources.conf`: the sources a machine or a user names, one source URL per line.
///
/// ```
/// # the receiver on the roof, through gpsd
/// gpsd://127.0.0.1:2947
/// serial:/dev/ttyACM0?baud=9600   # a second receiver, read directly
/// ```
/// Blank lines are ignored and `#` starts a comment. Which file counts, first match wins:
/// `$CORELOCATION_SOURCES_CONF` (for tests and one-off runs), then the user's
/// `$XDG_CONFIG_HOME/corelocation/sources.conf` (`~/.config/…` when XDG_CONFIG_HOME is unset),
/// then the system's `/etc/corelocation/sources.conf`. The user's file replaces the system's; it
/// does not add to it.
public enum SourcesConfigFile {
    public static let systemPath = "/etc/corelocation/sources.conf"

    /// The files to try, in order.
    public static func candidatePaths(environment: [String: String]) -> [String] {
        var paths: [String] = []
        if let explicit = environment["CORELOCATION_SOURCES_CONF"], !explicit.isEmpty { return [explicit] }
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            paths.append(config + "/corelocation/sources.conf")
        } else if let home = environment["HOME"], !home.isEmpty {
            paths.append(home + "/.config/corelocation/sources.conf")
        }
        paths.append(systemPath)
        return paths
    }

    /// The first existing file of `candidatePaths` and its sources; nil when there is none.
    public static func load(environment: [String: String]) throws -> (path: String, sources: [SourceSpec])? {
        for path in candidatePaths(environment: environment) where FileManager.default.fileExists(atPath: path) {
            let text: String
            do {
                text = try String(contentsOfFile: path, encoding: .utf8)
            } catch {
                throw SourceConfigurationError(.unreadableFile, "cannot read \(path): \(error.localizedDescription)")
            }
            return (path, try parse(text, origin: path))
        }
        return nil
    }

    /// Parses the text of a configuration file; errors name `origin:line`.
    public static func parse(_ text: String, origin: String = "sources.conf") throws -> [SourceSpec] {
        var specs: [SourceSpec] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = Substring(rawLine)
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { continue }
            do {
                specs.append(try SourceSpec.parse(trimmed))
            } catch var error as SourceConfigurationError {
                error.origin = "\(origin):\(index + 1)"
                throw error
            }
        }
        return specs
    }
}
