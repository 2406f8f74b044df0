import Foundation

/// One HTTP exchange with a geolocation service; `AsyncHTTPGeolocateTransport` is the real one.
public protocol GeolocateTransport: Sendable {
    /// POSTs `body` (JSON) to `url` and returns the status and body; throws only when no HTTP answer came.
    func post(url: URL, body: Data, userAgent: String, timeout: Duration) async throws -> (status: Int, body: Data)
}
