import Foundation
import Logging

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File-system chores around the database file: private directories and modes, moving aside.
enum DatabaseFiles {
    /// Owner read/write only: the file holds which apps may locate the user, and later positions.
    static let fileMode: mode_t = 0o600
    /// Owner only, for the directories we create.
    static let directoryMode: mode_t = 0o700
    /// Companion files SQLite may leave next to the database; they move with it.
    static let companionSuffixes = ["-journal", "-wal", "-shm"]

    /// Creates the missing directories above `path`, each with mode 0700. Existing directories
    /// are left as they are (they may be the user's own, such as `$XDG_DATA_HOME`).
    static func createParentDirectories(of path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty else { return }
        var missing: [String] = []
        var current = parent
        while !current.isEmpty, current != "/", !FileManager.default.fileExists(atPath: current) {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        for directory in missing.reversed() {
            if mkdir(directory, directoryMode) != 0, errno != EEXIST {
                throw StorageError(
                    code: .cannotCreateDirectory,
                    message: "cannot create directory \(directory): \(String(cString: strerror(errno)))"
                )
            }
            // mkdir's mode is filtered by the umask; a directory we create is ours to set exactly.
            _ = chmod(directory, directoryMode)
        }
    }

    /// Creates `path` with mode 0600 if it does not exist; otherwise checks it is a regular file
    /// and tightens a wider mode to 0600 (with a warning).
    ///
    /// SQLite creates its `-journal` with the database file's permissions, so a 0600 main file
    /// keeps the journal private too.
    static func prepareFile(at path: String, logger: Logger) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, fileMode)
        if descriptor >= 0 {
            defer { close(descriptor) }
            // The umask can only narrow the mode; set it exactly anyway.
            if fchmod(descriptor, fileMode) != 0 {
                throw posixError(.cannotOpen, "cannot set mode 0600 on \(path)")
            }
            return
        }
        guard errno == EEXIST else {
            throw posixError(.cannotOpen, "cannot create database \(path)")
        }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw posixError(.cannotOpen, "cannot read the attributes of \(path)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw StorageError(code: .cannotOpen, message: "\(path) is not a regular file")
        }
        let mode = info.st_mode & 0o7777
        if mode != fileMode {
            guard chmod(path, fileMode) == 0 else {
                throw posixError(.cannotOpen, "cannot set mode 0600 on \(path)")
            }
            logger.warning(
                "Database file had mode \(String(mode, radix: 8)); set it to 600",
                metadata: ["path": "\(path)"]
            )
        }
    }

    /// Renames `path` (and any companion journal files) to `<path>.<reason>-<timestamp>`, adding
    /// `-2`, `-3`, … if that name is taken. Returns the new path of the main file.
    static func moveAside(_ path: String, reason: StorageRecovery.Reason, now: Date) throws -> String {
        let base = "\(path).\(reason.rawValue)-\(timestamp(now))"
        var target = base
        var attempt = 1
        while FileManager.default.fileExists(atPath: target) {
            attempt += 1
            target = "\(base)-\(attempt)"
        }
        guard rename(path, target) == 0 else {
            throw posixError(.cannotMoveAside, "cannot move \(path) aside to \(target)")
        }
        for suffix in companionSuffixes where FileManager.default.fileExists(atPath: path + suffix) {
            guard rename(path + suffix, target + suffix) == 0 else {
                throw posixError(.cannotMoveAside, "cannot move \(path + suffix) aside to \(target + suffix)")
            }
        }
        return target
    }

    /// UTC, to the second, without characters that shells or other systems dislike in names.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let fields = [parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second].map { $0 ?? 0 }
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", arguments: fields.map { $0 as any CVarArg })
    }

    private static func posixError(_ code: StorageError.Code, _ message: String) -> StorageError {
        let number = errno
        return StorageError(
            code: code,
            message: "\(message): \(String(cString: strerror(number)))",
            underlying: POSIXError(POSIXErrorCode(rawValue: number) ?? .EIO)
        )
    }
}
