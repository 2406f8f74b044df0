/// What a client hears about its regions: `started` (`didStartMonitoringFor`), `failed`
/// (`monitoringDidFailFor`, with `failure`), `determined` (`didDetermineState`, with `state` and the `fix`
/// that decided it, absent when answered from memory), `entered` and `exited` (with the fix that completed
/// the crossing).
public enum WireRegionNotice: Hashable, Sendable {
    case started(WireRegion)
    case failed(WireRegion, WireRegionFailure)
    case determined(WireRegion, WireRegionState, fix: WireFix?)
    case entered(WireRegion, fix: WireFix)
    case exited(WireRegion, fix: WireFix)
}

extension WireRegionNotice: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        let type = try c.type()
        let region = try c.decode(WireRegion.self, forKey: "region")
        switch type {
        case "started": self = .started(region)
        case "failed": self = .failed(region, try c.decode(WireRegionFailure.self, forKey: "failure"))
        case "determined":
            self = .determined(
                region, try c.decode(WireRegionState.self, forKey: "state"),
                fix: try c.decodeIfPresent(WireFix.self, forKey: "fix"))
        case "entered": self = .entered(region, fix: try c.decode(WireFix.self, forKey: "fix"))
        case "exited": self = .exited(region, fix: try c.decode(WireFix.self, forKey: "fix"))
        default: throw c.unknown(type, of: "region notice")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        switch self {
        case let .started(region):
            try c.encode("started", forKey: "type")
            try c.encode(region, forKey: "region")
        case let .failed(region, failure):
            try c.encode("failed", forKey: "type")
            try c.encode(region, forKey: "region")
            try c.encode(failure, forKey: "failure")
        case let .determined(region, state, fix):
            try c.encode("determined", forKey: "type")
            try c.encode(region, forKey: "region")
            try c.encode(state, forKey: "state")
            try c.encodeIfPresent(fix, forKey: "fix")
        case let .entered(region, fix):
            try c.encode("entered", forKey: "type")
            try c.encode(region, forKey: "region")
            try c.encode(fix, forKey: "fix")
        case let .exited(region, fix):
            try c.encode("exited", forKey: "type")
            try c.encode(region, forKey: "region")
            try c.encode(fix, forKey: "fix")
        }
    }
}
