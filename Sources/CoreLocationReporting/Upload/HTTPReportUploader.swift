import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Uploads over HTTP with AsyncHTTPClient, in the endpoint's protocol (OwnTracks HTTP or OsmAnd).
///
/// Every request carries the report's idempotency key in an `Idempotency-Key` header (and OwnTracks'
/// `_id` field); the fix's own time goes in `tst` / `timestamp`, the time it was queued in OwnTracks'
/// `created_at`. Answers:
/// - OwnTracks: 2xx with a JSON array (or nothing) delivers; 2xx with anything else (an HTML page)
///   is `wrongServer`.
/// - OsmAnd: 2xx delivers; 400 is `unknownDevice` (Traccar's answer for a device it does not know).
/// - Both: 401/403 `unauthorized`; 404, 405 and other 4xx `wrongServer`; 408, 429 and 5xx
///   `serverError` with the `Retry-After` seconds if given; no answer within `timeout` or no
///   connection, `transport`.
public final class HTTPReportUploader: ReportUploader {
    public let endpoint: ReportEndpoint
    public let timeout: Double
    private let client: HTTPClient
    private let logger: Logger

    public init(
        endpoint: ReportEndpoint, timeout: Double = 30, client: HTTPClient = .shared,
        logger: Logger = Logger(label: "corelocation.reporting")
    ) {
        self.endpoint = endpoint
        self.timeout = timeout
        self.client = client
        self.logger = logger
    }

    public func send(_ report: QueuedReport) async throws {
        let request = try makeRequest(report)
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await client.execute(request, timeout: .milliseconds(Int64(timeout * 1000)), logger: logger)
            body = try await response.body.collect(upTo: 1 << 20)
        } catch {
            throw ReportingError(
                code: .transport, message: "no answer from \(endpoint.redacted) within \(Self.seconds(timeout)) s",
                underlying: error)
        }
        try check(response.status, headers: response.headers, body: String(buffer: body))
        logger.debug("Delivered \(report.key)")
    }

    func makeRequest(_ report: QueuedReport) throws -> HTTPClientRequest {
        switch endpoint.wire {
        case .ownTracks:
            var request = HTTPClientRequest(url: endpoint.url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "X-Limit-U", value: endpoint.limitUser)
            request.headers.add(name: "X-Limit-D", value: endpoint.device)
            request.headers.add(name: "Idempotency-Key", value: report.key)
            if let user = endpoint.user {
                let token = Data("\(user):\(endpoint.password ?? "")".utf8).base64EncodedString()
                request.headers.add(name: "Authorization", value: "Basic \(token)")
            }
            let json = try OwnTracksMessage(report, device: endpoint.device).encoded()
            request.body = .bytes(ByteBuffer(bytes: json))
            return request
        case .osmAnd:
            guard var components = URLComponents(string: endpoint.url) else {
                throw ReportingError(code: .badURL, message: "cannot build a request to \(endpoint.url)")
            }
            components.queryItems = (components.queryItems ?? []) + OsmAndQuery.items(report, device: endpoint.device)
            guard let url = components.string else {
                throw ReportingError(code: .badURL, message: "cannot build a request to \(endpoint.url)")
            }
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "Idempotency-Key", value: report.key)
            return request
        }
    }

    func check(_ status: HTTPResponseStatus, headers: HTTPHeaders, body: String) throws {
        let code = Int(status.code)
        let place = endpoint.redacted
        switch code {
        case 200..<300:
            guard endpoint.wire == .ownTracks else { return }
            let trimmed = body.trimmingCharacters(in: .whitespacesAndNewlines)
            if trimmed.isEmpty { return }
            if let data = trimmed.data(using: .utf8), (try? JSONSerialization.jsonObject(with: data)) is [Any] { return }
            let type = headers.first(name: "Content-Type") ?? "no content type"
            throw ReportingError(
                code: .wrongServer,
                message: "\(place) answered \(code) with \(type) (\(Self.excerpt(trimmed))), not OwnTracks' JSON array: "
                    + "is the URL the Recorder's /pub endpoint?")
        case 401, 403:
            throw ReportingError(
                code: .unauthorized,
                message: "\(place) refused the credentials (\(code)); check the user and password in --to")
        case 400 where endpoint.wire == .osmAnd:
            throw ReportingError(
                code: .unknownDevice,
                message: "\(place) does not know device \"\(endpoint.device)\" (400); register it on the server first")
        case 408, 429, 500..<600:
            let retryAfter = headers.first(name: "Retry-After").flatMap { Self.retryAfter($0) }
            throw ReportingError(
                code: .serverError, message: "\(place) answered \(code)" + (retryAfter.map { ", retry after \($0) s" } ?? ""),
                retryAfter: retryAfter)
        default:
            throw ReportingError(code: .wrongServer, message: "\(place) answered \(code) (\(Self.excerpt(body)))")
        }
    }

    /// `Retry-After`: delay-seconds or an HTTP-date (RFC 9110 §10.2.3); nil if neither.
    static func retryAfter(_ value: String, now: Date = Date()) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds >= 0, seconds.isFinite { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text).map { max(0, $0.timeIntervalSince(now)) }
    }

    static func excerpt(_ body: String) -> String {
        let line = body.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return line.count > 60 ? String(line.prefix(60)) + "…" : (line.isEmpty ? "empty body" : line)
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}
