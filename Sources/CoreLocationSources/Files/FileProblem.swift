import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a recorded file (a GPX track, an NMEA log) cannot be read, said the way a person needs it:
/// "no such file: PATH", "permission denied: PATH", "PATH is a directory, not a file", "PATH is a FIFO
/// (named pipe), not a file". Match on `code`.
public struct FileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case noSuchFile, permissionDenied, isDirectory, isFIFO, notRegularFile, unreadable
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// Nothing at the path (or a directory on the way is missing).
        public static let noSuchFile = Code(.noSuchFile)
        /// The file (or a directory on the way) may not be read by this user.
        public static let permissionDenied = Code(.permissionDenied)
        /// The path names a directory.
        public static let isDirectory = Code(.isDirectory)
        /// The path names a FIFO: a live stream, not a recording (read it with `--source stdin < PATH`).
        public static let isFIFO = Code(.isFIFO)
        /// A socket, a device or another file that is not a regular file.
        public static let notRegularFile = Code(.notRegularFile)
        /// Opening or reading failed for another reason (see `errno`).
        public static let unreadable = Code(.unreadable)

        public var description: String { "\(value)" }

        /// Lets `catch FileProblem.Code.noSuchFile { … }` match a thrown `FileProblem`.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? FileProblem)?.code == code
        }
    }

    public var code: Code
    public var path: String
    public var message: String
    /// The `errno` behind it, when there is one.
    public var errno: Int32?

    public init(code: Code, path: String, message: String, errno: Int32? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.errno = errno
    }

    public var description: String { message }

    /// The problem with reading `path` as a recorded file, or nil when it is a readable regular
    /// file. Follows symbolic links (a link to a readable file is fine).
    public static func check(_ path: String) -> FileProblem? {
        var info = stat()
        guard stat(path, &info) == 0 else { return fromErrno(Glibc.errno, path: path) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR: return FileProblem(code: .isDirectory, path: path, message: "\(path) is a directory, not a file")
        case S_IFIFO:
            return FileProblem(
                code: .isFIFO, path: path,
                message: "\(path) is a FIFO (named pipe), not a file; to read it live use --source stdin < \(path)"
            )
        default:
            return FileProblem(code: .notRegularFile, path: path, message: "\(path) is not a regular file")
        }
        guard access(path, R_OK) == 0 else { return fromErrno(Glibc.errno, path: path) }
        return nil
    }

    /// The problem for an `errno` from opening or examining `path`.
    public static func fromErrno(_ code: Int32, path: String) -> FileProblem {
        switch code {
        case ENOENT, ENOTDIR:
            FileProblem(code: .noSuchFile, path: path, message: "no such file: \(path)", errno: code)
        case EACCES, EPERM:
            FileProblem(code: .permissionDenied, path: path, message: "permission denied: \(path)", errno: code)
        case EISDIR:
            FileProblem(code: .isDirectory, path: path, message: "\(path) is a directory, not a file", errno: code)
        default:
            FileProblem(
                code: .unreadable, path: path, message: "cannot read \(path): \(String(cString: strerror(code)))",
                errno: code
            )
        }
    }

    /// Checks `path` (see `check`) and opens it as a stream.
    /// - Throws: `FileProblem`.
    public static func openStream(_ path: String) throws -> InputStream {
        if let problem = check(path) { throw problem }
        guard let stream = InputStream(fileAtPath: path) else {
            throw FileProblem(code: .unreadable, path: path, message: "cannot read \(path)")
        }
        return stream
    }
}
