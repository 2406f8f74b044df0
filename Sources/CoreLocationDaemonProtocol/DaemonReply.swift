/// The `body` of a reply: `{"type":NAME,…}`.
public enum DaemonReply: Hashable, Sendable {
    case ok
    case failure(DaemonError)
    case status(DaemonStatus)
    /// The answer to `requestTemporaryFullAccuracy`: nil, or a `CLError.Code` raw value.
    case accuracy(errorCode: Int?)
    /// The answer to `monitoredRegions` and `monitorConditions`.
    case regions([WireStoredRegion])
    /// The answer to `background`.
    case background(BackgroundStatus)
    /// The answer to `decisions`.
    case decisions([WireDecision], defaultPolicy: WireDefaultPolicy?)
    /// The app's beacon regions (`beaconRegions`).
    case beaconRegions([BeaconRegionSpec])
    /// A beacon region's state now (`beaconRegionState`): `CLRegionState`'s raw value (0 unknown,
    /// 1 inside, 2 outside).
    case beaconRegionState(Int)
    /// A monitor's beacon conditions (`monitorBeaconConditions`).
    case beaconConditions([BeaconConditionState])
}

extension DaemonReply: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        let type = try c.type()
        switch type {
        case "ok": self = .ok
        case "failure": self = .failure(try c.decode(DaemonError.self, forKey: "error"))
        case "status": self = .status(try c.decode(DaemonStatus.self, forKey: "status"))
        case "accuracy": self = .accuracy(errorCode: try c.decodeIfPresent(Int.self, forKey: "errorCode"))
        case "regions": self = .regions(try c.decode([WireStoredRegion].self, forKey: "regions"))
        case "background": self = .background(try c.decode(BackgroundStatus.self, forKey: "background"))
        case "decisions":
            self = .decisions(
                try c.decode([WireDecision].self, forKey: "decisions"),
                defaultPolicy: try c.decodeIfPresent(WireDefaultPolicy.self, forKey: "defaultPolicy"))
        case "beaconRegions": self = .beaconRegions(try c.decode([BeaconRegionSpec].self, forKey: "regions"))
        case "beaconRegionState": self = .beaconRegionState(try c.decode(Int.self, forKey: "state"))
        case "beaconConditions": self = .beaconConditions(try c.decode([BeaconConditionState].self, forKey: "conditions"))
        default: throw c.unknown(type, of: "reply")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        switch self {
        case .ok: try c.encode("ok", forKey: "type")
        case let .failure(error):
            try c.encode("failure", forKey: "type")
            try c.encode(error, forKey: "error")
        case let .status(status):
            try c.encode("status", forKey: "type")
            try c.encode(status, forKey: "status")
        case let .accuracy(errorCode):
            try c.encode("accuracy", forKey: "type")
            try c.encodeIfPresent(errorCode, forKey: "errorCode")
        case let .regions(regions):
            try c.encode("regions", forKey: "type")
            try c.encode(regions, forKey: "regions")
        case let .background(background):
            try c.encode("background", forKey: "type")
            try c.encode(background, forKey: "background")
        case let .decisions(decisions, defaultPolicy):
            try c.encode("decisions", forKey: "type")
            try c.encode(decisions, forKey: "decisions")
            try c.encodeIfPresent(defaultPolicy, forKey: "defaultPolicy")
        case let .beaconRegions(regions):
            try c.encode("beaconRegions", forKey: "type")
            try c.encode(regions, forKey: "regions")
        case let .beaconRegionState(state):
            try c.encode("beaconRegionState", forKey: "type")
            try c.encode(state, forKey: "state")
        case let .beaconConditions(conditions):
            try c.encode("beaconConditions", forKey: "type")
            try c.encode(conditions, forKey: "conditions")
        }
    }
}
