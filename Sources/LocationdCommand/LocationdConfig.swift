import Foundation

/// `locationd.conf`: the daemon's options in a file, one `key = value` a line (`#` comments), the
/// keys being the long options of `locationd --help` without the dashes; `source` and `gpsd-listen` may repeat.
/// Options on the command line win: a key given there replaces every line of the file with that key.
///
/// The file: `--config PATH`, else `/etc/corelocation/locationd.conf` for root and
/// `$XDG_CONFIG_HOME/corelocation/locationd.conf` (`~/.config/…`) for a user. A default file
/// that does not exist is no error; a named one that does not exist is. (Decision 0017.)
enum LocationdConfig {
    struct Failure: Error, CustomStringConvertible {
        var path: String
        var line: Int?
        var message: String

        var description: String {
            if let line { return "\(path):\(line): \(message)" }
            return "\(path): \(message)"
        }
    }

    /// The keys a file may set; the flags (`--help`…) and `config` itself are not among them.
    static let keys: Set<String> = [
        "socket", "database", "simulate", "simulate-speed", "source", "region-limit", "hello-timeout",
        "write-timeout", "max-buffered", "max-connections-per-uid", "frame-timeout", "max-partial-frames",
        "prompt-timeout", "log-level", "geoclue", "gpsd-listen",
    ]

    static func defaultPath(environment: [String: String], isRoot: Bool) -> String {
        if isRoot { return "/etc/corelocation/locationd.conf" }
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return config + "/corelocation/locationd.conf"
    }

    /// The file's lines as (key, value), in order.
    static func parse(_ text: String, path: String) throws(Failure) -> [(key: String, value: String)] {
        var entries: [(key: String, value: String)] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let key: String
            var value: String
            if let equals = line.firstIndex(of: "=") {
                key = line[..<equals].trimmingCharacters(in: .whitespaces)
                value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            } else {
                throw Failure(path: path, line: index + 1, message: "expected `key = value`, found \"\(line)\"")
            }
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            guard keys.contains(key) else {
                let known = keys.sorted().joined(separator: ", ")
                throw Failure(path: path, line: index + 1, message: "unknown key \"\(key)\" (known: \(known))")
            }
            guard !value.isEmpty else { throw Failure(path: path, line: index + 1, message: "\(key) has no value") }
            entries.append((key, value))
        }
        return entries
    }

    /// The file's entries as arguments, without the keys the command line gives, then the command line.
    static func merge(_ entries: [(key: String, value: String)], commandLine: [String]) -> [String] {
        let given = Set(commandLine.compactMap { argument -> String? in
            guard argument.hasPrefix("--") else { return nil }
            return String(argument.dropFirst(2).split(separator: "=", maxSplits: 1).first ?? "")
        })
        let fromFile = entries.filter { !given.contains($0.key) }.flatMap { ["--\($0.key)", $0.value] }
        return fromFile + commandLine
    }

    /// The arguments locationd runs with: the configuration file's under the command line's.
    static func effectiveArguments(
        commandLine: [String], environment: [String: String], isRoot: Bool
    ) throws(Failure) -> [String] {
        var named: String?
        for (index, argument) in commandLine.enumerated() {
            if argument == "--config", index + 1 < commandLine.count { named = commandLine[index + 1] }
            if argument.hasPrefix("--config=") { named = String(argument.dropFirst("--config=".count)) }
        }
        let path = named ?? defaultPath(environment: environment, isRoot: isRoot)
        guard FileManager.default.fileExists(atPath: path) else {
            if named != nil { throw Failure(path: path, line: nil, message: "no such file") }
            return commandLine
        }
        // A FileHandle, not FileManager.contents: that answers nil for /dev/null (an empty file).
        guard let handle = FileHandle(forReadingAtPath: path), let data = try? handle.readToEnd() ?? Data() else {
            throw Failure(path: path, line: nil, message: "cannot be read")
        }
        try? handle.close()
        return merge(try parse(String(decoding: data, as: UTF8.self), path: path), commandLine: commandLine)
    }
}
