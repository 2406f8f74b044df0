import CoreLocationDaemonProtocol
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A version-2 client against a daemon of version 1 (decision 0068): a real socket whose server answers the
/// hello as a version-1 locationd did. The client refuses it naming both versions, whatever that daemon says.
@Suite struct Version1DaemonTests {
    /// Listens on a fresh socket path, accepts one connection, reads the hello, answers `reply` and closes.
    static func serveOnce(_ reply: String) throws -> (path: String, done: DispatchSemaphore) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("v1-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("s").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0 && listen(fd, 1) == 0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let client = accept(fd, nil, nil)
            var decoder = FrameDecoder()
            while (try? decoder.next()) == nil {
                let bytes = UnixSocket.readSome(client)
                if bytes.isEmpty { break }
                decoder.append(bytes)
            }
            _ = UnixSocket.writeAll(client, FrameDecoder.frame(Array(reply.utf8)))
            UnixSocket.shutdownAndClose(client)
            close(fd)
            done.signal()
        }
        return (path, done)
    }

    static func refusal(_ reply: String) throws -> DaemonError? {
        let (path, done) = try serveOnce(reply)
        defer { done.wait() }
        do {
            _ = try DaemonConnection.connect(path: path, label: "v2", timeout: 5)
        } catch let .refused(error) {
            return error
        } catch {
            Issue.record("not refused: \(error)")
        }
        return nil
    }

    @Test func aVersion1HelloIsRefusedNamingBothVersions() throws {
        let hello = #"{"hello":{"_0":{"app":"x","authorization":{"accuracy":"full","level":"whenInUse"},"pid":1,"#
            + #""servicesEnabled":true,"uid":0,"version":1}}}"#
        let error = try #require(try Self.refusal(hello))
        #expect(error.code == .incompatibleVersion)
        #expect(error.message == "locationd speaks protocol version 1; this client speaks version 2")
    }

    /// What a version-1 daemon answers a hello it cannot read.
    @Test func aVersion1ErrorIsRefusedNamingBothVersions() throws {
        let error = try #require(try Self.refusal(#"{"error":{"_0":{"code":"malformed","fatal":true,"message":"x"}}}"#))
        #expect(error.code == .incompatibleVersion)
        #expect(error.message == "locationd speaks protocol version 1; this client speaks version 2")
    }

    /// A hello in version 2's shape with another number.
    @Test func anotherVersionsHelloIsRefused() throws {
        let hello = #"{"type":"hello","version":3,"app":"x","uid":0,"pid":1,"servicesEnabled":true,"#
            + #""authorization":{"level":"always","accuracy":"full"}}"#
        let error = try #require(try Self.refusal(hello))
        #expect(error.code == .incompatibleVersion)
        #expect(error.message == "locationd speaks protocol version 3; this client speaks version 2")
    }
}
