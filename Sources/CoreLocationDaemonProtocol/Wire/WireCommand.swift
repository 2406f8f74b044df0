/// What a client asks of the standard location service: `desiredAccuracy` and `distanceFilter` in metres
/// (negative: best / every fix), `activityType` (`CLActivityType`'s raw value), `pausesAutomatically`,
/// and `allowsBackground`/`showsIndicator` (absent: false; decision 0047).
public struct WireUpdateRequest: Hashable, Sendable {
    public var desiredAccuracy: Double
    public var distanceFilter: Double
    public var activityType: Int
    public var pausesAutomatically: Bool
    public var allowsBackground: Bool?
    public var showsIndicator: Bool?

    public init(
        desiredAccuracy: Double, distanceFilter: Double, activityType: Int, pausesAutomatically: Bool,
        allowsBackground: Bool?, showsIndicator: Bool?
    ) {
        self.desiredAccuracy = desiredAccuracy
        self.distanceFilter = distanceFilter
        self.activityType = activityType
        self.pausesAutomatically = pausesAutomatically
        self.allowsBackground = allowsBackground
        self.showsIndicator = showsIndicator
    }
}

extension WireUpdateRequest: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        desiredAccuracy = try c.decode(Double.self, forKey: "desiredAccuracy")
        distanceFilter = try c.decode(Double.self, forKey: "distanceFilter")
        activityType = try c.decode(Int.self, forKey: "activityType")
        pausesAutomatically = try c.decode(Bool.self, forKey: "pausesAutomatically")
        allowsBackground = try c.decodeIfPresent(Bool.self, forKey: "allowsBackground")
        showsIndicator = try c.decodeIfPresent(Bool.self, forKey: "showsIndicator")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.encode(desiredAccuracy, forKey: "desiredAccuracy")
        try c.encode(distanceFilter, forKey: "distanceFilter")
        try c.encode(activityType, forKey: "activityType")
        try c.encode(pausesAutomatically, forKey: "pausesAutomatically")
        try c.encodeIfPresent(allowsBackground, forKey: "allowsBackground")
        try c.encodeIfPresent(showsIndicator, forKey: "showsIndicator")
    }
}

/// A command for one of the connection's clients. Authorization is not among them: the daemon decides it.
public enum WireCommand: Hashable, Sendable {
    case startUpdates(WireUpdateRequest)
    case stopUpdates
    case requestLocation(WireUpdateRequest)
    case startMonitoring(WireRegion)
    case stopMonitoring(identifier: String, group: String)
    case requestRegionState(identifier: String, group: String)
    case startSignificantChanges
    case stopSignificantChanges
    /// Seconds and metres; either may be infinite (`"inf"`).
    case allowDeferredUpdates(distance: Double, timeout: Double)
    case disallowDeferredUpdates
    case startVisits
    case stopVisits
    case unregister
}

extension WireCommand: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        let type = try c.type()
        switch type {
        case "startUpdates": self = .startUpdates(try c.decode(WireUpdateRequest.self, forKey: "request"))
        case "stopUpdates": self = .stopUpdates
        case "requestLocation": self = .requestLocation(try c.decode(WireUpdateRequest.self, forKey: "request"))
        case "startMonitoring": self = .startMonitoring(try c.decode(WireRegion.self, forKey: "region"))
        case "stopMonitoring":
            self = .stopMonitoring(
                identifier: try c.decode(String.self, forKey: "identifier"),
                group: try c.decodeIfPresent(String.self, forKey: "group") ?? "")
        case "requestRegionState":
            self = .requestRegionState(
                identifier: try c.decode(String.self, forKey: "identifier"),
                group: try c.decodeIfPresent(String.self, forKey: "group") ?? "")
        case "startSignificantChanges": self = .startSignificantChanges
        case "stopSignificantChanges": self = .stopSignificantChanges
        case "allowDeferredUpdates":
            self = .allowDeferredUpdates(
                distance: try c.decode(Double.self, forKey: "distance"),
                timeout: try c.decode(Double.self, forKey: "timeout"))
        case "disallowDeferredUpdates": self = .disallowDeferredUpdates
        case "startVisits": self = .startVisits
        case "stopVisits": self = .stopVisits
        case "unregister": self = .unregister
        default: throw c.unknown(type, of: "command")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        switch self {
        case let .startUpdates(request):
            try c.encode("startUpdates", forKey: "type")
            try c.encode(request, forKey: "request")
        case .stopUpdates: try c.encode("stopUpdates", forKey: "type")
        case let .requestLocation(request):
            try c.encode("requestLocation", forKey: "type")
            try c.encode(request, forKey: "request")
        case let .startMonitoring(region):
            try c.encode("startMonitoring", forKey: "type")
            try c.encode(region, forKey: "region")
        case let .stopMonitoring(identifier, group):
            try c.encode("stopMonitoring", forKey: "type")
            try c.encode(identifier, forKey: "identifier")
            try c.encode(group, forKey: "group")
        case let .requestRegionState(identifier, group):
            try c.encode("requestRegionState", forKey: "type")
            try c.encode(identifier, forKey: "identifier")
            try c.encode(group, forKey: "group")
        case .startSignificantChanges: try c.encode("startSignificantChanges", forKey: "type")
        case .stopSignificantChanges: try c.encode("stopSignificantChanges", forKey: "type")
        case let .allowDeferredUpdates(distance, timeout):
            try c.encode("allowDeferredUpdates", forKey: "type")
            try c.encode(distance, forKey: "distance")
            try c.encode(timeout, forKey: "timeout")
        case .disallowDeferredUpdates: try c.encode("disallowDeferredUpdates", forKey: "type")
        case .startVisits: try c.encode("startVisits", forKey: "type")
        case .stopVisits: try c.encode("stopVisits", forKey: "type")
        case .unregister: try c.encode("unregister", forKey: "type")
        }
    }
}
