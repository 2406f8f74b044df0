import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Another process's Info.plist as locationd reads it (issue 37, decision 0069): a file a client names is
/// untrusted input. Only a regular file of at most `sizeLimit` bytes, owned by the client's uid or root, is read,
/// and what is checked is the opened descriptor (`fstat`), so the file cannot be swapped between check and read.
/// The descriptor is opened `O_NOFOLLOW` (a symbolic link as the last component is refused) and `O_NONBLOCK`
/// (opening a FIFO does not wait for a writer; it is then refused as not a regular file).
package enum ClientInfoPlist {
    /// 64 KiB: the largest Info.plist of an app here is under 4 KiB; a real one with every key is under 16 KiB.
    package static let sizeLimit = 64 * 1024

    package enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
        case absent
        case symbolicLink
        case cannotOpen(errno: Int32)
        case notRegularFile
        case otherOwner(uid: UInt32)
        case tooLarge(size: Int64)
        case cannotRead(errno: Int32)
        case notADictionary

        package var description: String {
            switch self {
            case .absent: "no such file"
            case .symbolicLink: "a symbolic link"
            case let .cannotOpen(code): "cannot open: \(String(cString: strerror(code)))"
            case .notRegularFile: "not a regular file"
            case let .otherOwner(uid): "owned by uid \(uid), neither the client's nor root"
            case let .tooLarge(size): "\(size) bytes, over the limit of \(ClientInfoPlist.sizeLimit)"
            case let .cannotRead(code): "cannot read: \(String(cString: strerror(code)))"
            case .notADictionary: "not a property list dictionary"
            }
        }
    }

    /// What the daemon keeps of a plist: the values `AppIdentity.make` reads (Sendable, unlike `[String: Any]`).
    package struct Fields: Sendable, Equatable {
        package var plist: [String: PlistValue]
        package var dictionary: [String: Any] { plist.mapValues(\.object) }
    }

    package enum PlistValue: Sendable, Equatable {
        case string(String)
        case bool(Bool)
        case strings([String])
        case dictionary([String: String])

        init?(_ value: Any) {
            if let string = value as? String {
                self = .string(string)
            } else if let flag = value as? Bool {
                self = .bool(flag)
            } else if let list = value as? [Any] {
                self = .strings(list.compactMap { $0 as? String })
            } else if let map = value as? [String: Any] {
                self = .dictionary(map.compactMapValues { $0 as? String })
            } else {
                return nil
            }
        }

        var object: Any {
            switch self {
            case let .string(value): value
            case let .bool(value): value
            case let .strings(value): value
            case let .dictionary(value): value
            }
        }
    }

    /// The file's identity: a file changed in place gets a new mtime or size, a replaced one a new inode.
    struct FileKey: Hashable {
        var device: UInt64
        var inode: UInt64
        var mtimeSeconds: Int
        var mtimeNanoseconds: Int
        var size: Int64
    }

    /// Parsed plists by file; cleared when full, so its size stays bounded whatever clients name.
    private static let cache = Mutex<[FileKey: Fields]>([:])
    private static let cacheLimit = 256

    /// Reads the plist at `path` for a client of `owner`, or says why not.
    package static func read(at path: String, owner: UInt32) -> Result<Fields, Refusal> {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: return .failure(.absent)
            case ELOOP: return .failure(.symbolicLink)
            default: return .failure(.cannotOpen(errno: code))
            }
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(.cannotOpen(errno: errno)) }
        // S_IFMT and S_IFREG (sys/stat.h), which Glibc's Swift module does not export as mode_t.
        guard status.st_mode & 0o170000 == 0o100000 else { return .failure(.notRegularFile) }
        guard status.st_uid == owner || status.st_uid == 0 else { return .failure(.otherOwner(uid: status.st_uid)) }
        guard status.st_size <= sizeLimit else { return .failure(.tooLarge(size: Int64(status.st_size))) }
        let key = FileKey(
            device: UInt64(status.st_dev), inode: UInt64(status.st_ino), mtimeSeconds: status.st_mtim.tv_sec,
            mtimeNanoseconds: status.st_mtim.tv_nsec, size: Int64(status.st_size))
        if let cached = cache.withLock({ $0[key] }) { return .success(cached) }
        // At most one byte over the limit: a file that grew since fstat is refused, not read to its end.
        var bytes = [UInt8](repeating: 0, count: sizeLimit + 1)
        var count = 0
        while count < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress.map { $0 + count }, buffer.count - count)
            }
            if got < 0 {
                if errno == EINTR { continue }
                return .failure(.cannotRead(errno: errno))
            }
            if got == 0 { break }
            count += got
        }
        guard count <= sizeLimit else { return .failure(.tooLarge(size: Int64(count))) }
        guard let object = try? PropertyListSerialization.propertyList(from: Data(bytes[..<count]), options: [], format: nil),
            let dictionary = object as? [String: Any]
        else { return .failure(.notADictionary) }
        let fields = Fields(plist: dictionary.compactMapValues(PlistValue.init))
        cache.withLock { cache in
            if cache.count >= cacheLimit { cache.removeAll() }
            cache[key] = fields
        }
        return .success(fields)
    }
}

extension String {
    /// The text with control characters escaped (`\n`, `\u{1B}`…), for logging what a client chose (a path, a
    /// label): a newline in it must not forge a log line.
    package var escapedForLog: String {
        var result = ""
        for scalar in unicodeScalars {
            if scalar.properties.generalCategory == .control || scalar == "\\" {
                result += scalar.escaped(asASCII: true)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
