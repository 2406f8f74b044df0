import CoreLocationDaemonProtocol
import CoreLocationGPSDTestSupport
import CoreLocationRuntime
import Foundation
import Logging
import Testing

@testable import LocationdCommand

#if canImport(Glibc)
import Glibc
#endif

/// A client's Info.plist is untrusted input (issue 37 item 1, decision 0069): only a regular file of at most
/// 64 KiB owned by the client's uid or root is read, checked on the opened descriptor; anything else is refused
/// before a byte of it is read, and the app is named as if the file were not there.
@Suite struct ClientInfoPlistTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A directory with an executable's name and a plist beside it.
    struct Scratch {
        let directory: String
        var executable: String { directory + "/app" }
        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("plist-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }

        func writePlist(_ name: String, bundle: String) throws -> String {
            let path = directory + "/" + name
            let plist: [String: Any] = ["CFBundleIdentifier": bundle, "NSLocationWhenInUseUsageDescription": "Tests."]
            try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
                .write(to: URL(fileURLWithPath: path))
            return path
        }

        func remove() { try? FileManager.default.removeItem(atPath: directory) }
    }

    @Test func aNormalPlistNamesTheApp() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = try scratch.writePlist("app-Info.plist", bundle: "org.example.normal")
        let fields = try ClientInfoPlist.read(at: path, owner: getuid()).get()
        #expect(fields.plist["CFBundleIdentifier"] == .string("org.example.normal"))
        let identity = AppIdentity.resolve(executable: scratch.executable, infoPlist: nil, owner: getuid(), logger: Self.logger)
        #expect(identity.id == "org.example.normal")
        #expect(identity.whenInUseDescription == "Tests.")
    }

    /// A sparse 1 GiB file: refused from fstat's size (the reader never holds more than 64 KiB + 1 bytes, so a
    /// size of exactly 1 GiB in the refusal can only come from fstat), and the app is named by its executable.
    @Test func aHugeSparsePlistIsRefusedFromItsSize() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.directory + "/app-Info.plist"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        #expect(ftruncate(descriptor, 1 << 30) == 0)
        close(descriptor)
        #expect(ClientInfoPlist.read(at: path, owner: getuid()) == .failure(.tooLarge(size: 1 << 30)))
        let identity = AppIdentity.resolve(executable: scratch.executable, infoPlist: nil, owner: getuid(), logger: Self.logger)
        #expect(identity.id == scratch.executable)
        #expect(identity.infoPlistPath == nil)
    }

    /// A FIFO with no writer: opening it does not wait (O_NONBLOCK) and it is refused as not a regular file. On
    /// main, `Data(contentsOf:)` waited for a writer forever (this test hung).
    @Test func aFIFOIsRefusedWithoutWaiting() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.directory + "/app-Info.plist"
        #expect(mkfifo(path, 0o644) == 0)
        #expect(ClientInfoPlist.read(at: path, owner: getuid()) == .failure(.notRegularFile))
        let identity = AppIdentity.resolve(executable: scratch.executable, infoPlist: nil, owner: getuid(), logger: Self.logger)
        #expect(identity.id == scratch.executable)
    }

    /// A symbolic link to a good plist is refused (O_NOFOLLOW): on main it named the app from the target.
    @Test func aSymbolicLinkIsRefused() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let target = try scratch.writePlist("elsewhere.plist", bundle: "org.example.linked")
        let path = scratch.directory + "/app-Info.plist"
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target)
        #expect(ClientInfoPlist.read(at: path, owner: getuid()) == .failure(.symbolicLink))
        let identity = AppIdentity.resolve(executable: scratch.executable, infoPlist: nil, owner: getuid(), logger: Self.logger)
        #expect(identity.id == scratch.executable)
    }

    /// A good plist owned by another user (nobody, when the test runs as root; else the owner the reader is told
    /// differs) is refused: on main it named the app.
    @Test func aPlistOfAnotherOwnerIsRefused() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = try scratch.writePlist("app-Info.plist", bundle: "org.example.foreign")
        let client: UInt32
        if getuid() == 0 {
            #expect(chown(path, 65534, 65534) == 0)
            client = 1000
            #expect(ClientInfoPlist.read(at: path, owner: client) == .failure(.otherOwner(uid: 65534)))
        } else {
            client = getuid() + 1
            #expect(ClientInfoPlist.read(at: path, owner: client) == .failure(.otherOwner(uid: getuid())))
        }
        let identity = AppIdentity.resolve(executable: scratch.executable, infoPlist: nil, owner: client, logger: Self.logger)
        #expect(identity.id == scratch.executable)
        // Root's files are every client's (the plists installed with packages).
        if getuid() == 0 {
            #expect(chown(path, 0, 0) == 0)
            #expect(AppIdentity.resolve(executable: scratch.executable, infoPlist: nil, owner: client, logger: Self.logger).id
                == "org.example.foreign")
        }
    }

    @Test func aPlistOverTheLimitIsRefusedAndOneAtTheLimitIsRead() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.directory + "/app-Info.plist"
        let head = Array(
            #"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>CFBundleIdentifier</key><string>org.example.edge</string></dict></plist>"#
                .utf8)
        // XML allows trailing whitespace: padded to the limit exactly, still a plist.
        try Data(head + [UInt8](repeating: 0x20, count: ClientInfoPlist.sizeLimit - head.count)).write(to: URL(fileURLWithPath: path))
        #expect(try ClientInfoPlist.read(at: path, owner: getuid()).get().plist["CFBundleIdentifier"] == .string("org.example.edge"))
        try Data(head + [UInt8](repeating: 0x20, count: ClientInfoPlist.sizeLimit + 1 - head.count)).write(to: URL(fileURLWithPath: path))
        #expect(ClientInfoPlist.read(at: path, owner: getuid()) == .failure(.tooLarge(size: Int64(ClientInfoPlist.sizeLimit + 1))))
    }

    /// The cache is keyed by (device, inode, mtime, size): the same file with the same mtime and size is not parsed
    /// again (a rewrite that restores both shows the cached value); a new mtime is read again.
    @Test func theCacheIsKeyedByTheFilesIdentity() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = try scratch.writePlist("app-Info.plist", bundle: "org.example.aaaa")
        var before = stat()
        #expect(stat(path, &before) == 0)
        #expect(try ClientInfoPlist.read(at: path, owner: getuid()).get().plist["CFBundleIdentifier"] == .string("org.example.aaaa"))
        // Rewritten in place (same inode), same size, mtime put back: the cached fields.
        let handle = try #require(FileHandle(forWritingAtPath: path))
        let data = try #require(FileManager.default.contents(atPath: path))
        try handle.write(contentsOf: Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "aaaa", with: "bbbb").utf8))
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(try ClientInfoPlist.read(at: path, owner: getuid()).get().plist["CFBundleIdentifier"] == .string("org.example.aaaa"))
        // A new mtime: read again.
        times[1].tv_sec += 10
        #expect(utimensat(AT_FDCWD, path, &times, 0) == 0)
        #expect(try ClientInfoPlist.read(at: path, owner: getuid()).get().plist["CFBundleIdentifier"] == .string("org.example.bbbb"))
    }

    @Test func controlCharactersAreEscapedForTheLog() {
        #expect("a\nb\u{1B}[31m\\".escapedForLog == #"a\nb\u{1B}[31m\\"#)
        #expect("/usr/bin/app".escapedForLog == "/usr/bin/app")
    }
}
