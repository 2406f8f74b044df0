import AsyncHTTPClient
import Foundation
import NIOCore

/// The geolocate exchange over AsyncHTTPClient (HTTP/1.1 or 2, TLS through swift-nio-ssl).
public struct AsyncHTTPGeolocateTransport: GeolocateTransport {
    /// Replies are small (`{"location":…,"accuracy":…}`); anything larger is not a geolocate reply.
    static let maximumReplyBytes = 64 * 1024
    private let client: HTTPClient

    /// Uses `HTTPClient.shared` (no shutdown needed) unless given a client.
    public init(client: HTTPClient = .shared) { self.client = client }

    public func post(url: URL, body: Data, userAgent: String, timeout: Duration) async throws -> (status: Int, body: Data) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
        let milliseconds = timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000
        let response = try await client.execute(request, timeout: .milliseconds(milliseconds))
        let buffer = try await response.body.collect(upTo: Self.maximumReplyBytes)
        return (Int(response.status.code), Data(buffer.readableBytesView))
    }
}
