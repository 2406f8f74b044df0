import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The reporter's server credentials, kept out of its command line (issue 37, item 8): a command line is read by
/// every user (`ps`, `/proc/PID/cmdline`) and is what locationd stores to start the reporter again. They come
/// from a file only its owner may read, as ssh wants of a private key, or from the environment, which only the
/// process's user and root can read and which locationd does not store (`LaunchTarget.keeps`).
enum ReportCredentials {
    static let environmentKey = "CORELOCATION_REPORT_CREDENTIALS"

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `user:password` from `file` (first line), else from the environment; nil when neither is given.
    static func load(file: String?, environment: [String: String]) throws -> (user: String, password: String)? {
        if let file { return try split(read(file), from: file) }
        if let text = environment[environmentKey], !text.isEmpty { return try split(text, from: environmentKey) }
        return nil
    }

    /// The file's text, once it is known to be a regular file of at most 4 KiB owned by this user that no one
    /// else may read or write.
    static func read(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "--credentials \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw Failure(description: "--credentials \(path) is not a regular file")
        }
        guard info.st_uid == getuid() else {
            throw Failure(description: "--credentials \(path) belongs to another user")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw Failure(
                description: String(
                    format: "--credentials %@ may be read by others (mode %o): chmod 600 it", path, info.st_mode & 0o777))
        }
        guard info.st_size <= 4096 else { throw Failure(description: "--credentials \(path) is longer than 4 KiB") }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count >= 0 else { throw Failure(description: "--credentials \(path): \(String(cString: strerror(errno)))") }
        return String(decoding: bytes.prefix(count), as: UTF8.self)
    }

    private static func split(_ text: String, from origin: String) throws -> (user: String, password: String) {
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
            throw Failure(description: "\(origin) must hold user:password")
        }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }
}
