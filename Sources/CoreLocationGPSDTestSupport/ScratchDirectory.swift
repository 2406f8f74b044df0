import Foundation

/// A directory under the system's temporary directory, removed with its files when the last reference
/// goes: a test that fails or throws cleans up as one that passes does, and a harness that holds one (a
/// stand-in server, a restarted server's store) takes it along when it goes.
///
/// The directory lives as long as the object, not as long as a path taken from it: code built with
/// optimization may end a local's lifetime at its last use, so such code keeps the object
/// (`withExtendedLifetime`) while the path is in use. The tests are built for debugging, where a local
/// lives to the end of its scope.
public final class ScratchDirectory: Sendable {
    public let url: URL

    public init(_ prefix: String) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of `name` in the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
