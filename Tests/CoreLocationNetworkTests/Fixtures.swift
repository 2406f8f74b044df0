import CoreLocationGPSDTestSupport
import Foundation

/// MaxMind's test databases (Fixtures/mmdb, from the maxminddb 3.2.0 sdist on PyPI; Apache-2.0 / MIT; NOTICE).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func mmdb(_ name: String) -> String { directory.appendingPathComponent("mmdb/\(name).mmdb").path }

    static var city: String { mmdb("GeoIP2-City-Test") }

    /// A scratch directory for files a test writes (truncated or corrupt copies, settings, a stand-in's log).
    static func scratch() throws -> ScratchDirectory { try ScratchDirectory("corelocation-net") }
}

import CoreLocationNetwork
import Testing

/// Expects `body` to throw a `NetworkSourceError` with `code`.
func expectError<T>(
    _ code: NetworkSourceError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) {
    do {
        _ = try body()
        Issue.record("expected \(code), nothing thrown. \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch let error as NetworkSourceError {
        #expect(error.code == code, "\(error) \(comment.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

struct BadTestAddress: Error {}

/// An address literal from a test table.
func ip(_ text: String) throws -> IPAddress {
    guard let address = IPAddress(text) else { throw BadTestAddress() }
    return address
}
