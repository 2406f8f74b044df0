/// What one client of a connection hears; on the wire the body of an event with the client's number beside
/// it (`{"type":"deliver","client":1,"delivery":…}`, see `DaemonEvent`).
public enum WireClientEvent: Hashable, Sendable {
    /// `deliver`.
    case delivery(WireDelivery)
    /// `fail`.
    case failure(WireFailure)
    /// `region`.
    case region(WireRegionNotice)
    /// `deferredFinished`: `error` absent when the deferral completed.
    case deferredFinished(WireDeferralError?)
    /// `visit`.
    case visit(WireVisit)
    /// `paused` (true) and `resumed` (false).
    case paused(Bool)
}

/// Why a client has no position (`CLError`): `location-unknown` (the daemon keeps trying), `denied`.
public enum WireFailure: String, Codable, Hashable, Sendable {
    case locationUnknown = "location-unknown"
    case denied
}

/// Why deferred updates ended (`CLError`'s deferred codes).
public enum WireDeferralError: String, Codable, Hashable, Sendable {
    case failed
    case notUpdatingLocation = "not-updating-location"
    case accuracyTooLow = "accuracy-too-low"
    case distanceFiltered = "distance-filtered"
    case canceled
}

extension WireClientEvent {
    /// The event types this enum owns, for `DaemonEvent`'s decoder.
    static let types: Set<String> = ["deliver", "fail", "region", "deferredFinished", "visit", "paused", "resumed"]

    init(type: String, from c: WireDecoding) throws {
        switch type {
        case "deliver": self = .delivery(try c.decode(WireDelivery.self, forKey: "delivery"))
        case "fail": self = .failure(try c.decode(WireFailure.self, forKey: "failure"))
        case "region": self = .region(try c.decode(WireRegionNotice.self, forKey: "notice"))
        case "deferredFinished": self = .deferredFinished(try c.decodeIfPresent(WireDeferralError.self, forKey: "error"))
        case "visit": self = .visit(try c.decode(WireVisit.self, forKey: "visit"))
        case "paused": self = .paused(true)
        case "resumed": self = .paused(false)
        default: throw c.unknown(type, of: "event")
        }
    }

    func encode(into c: inout WireEncoding) throws {
        switch self {
        case let .delivery(delivery):
            try c.encode("deliver", forKey: "type")
            try c.encode(delivery, forKey: "delivery")
        case let .failure(failure):
            try c.encode("fail", forKey: "type")
            try c.encode(failure, forKey: "failure")
        case let .region(notice):
            try c.encode("region", forKey: "type")
            try c.encode(notice, forKey: "notice")
        case let .deferredFinished(error):
            try c.encode("deferredFinished", forKey: "type")
            try c.encodeIfPresent(error, forKey: "error")
        case let .visit(visit):
            try c.encode("visit", forKey: "type")
            try c.encode(visit, forKey: "visit")
        case let .paused(paused):
            try c.encode(paused ? "paused" : "resumed", forKey: "type")
        }
    }
}
