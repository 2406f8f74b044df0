/// The `body` of an event: `{"type":NAME,…}`.
public enum DaemonEvent: Hashable, Sendable {
    /// What one of this connection's clients hears (types `deliver`, `fail`, `region`, `deferredFinished`,
    /// `visit`, `paused`, `resumed`), with the client number the connection chose (`client`).
    case client(UInt64, WireClientEvent)
    /// The app's authorization changed (or a request started/finished). Carries a sequence number:
    /// the client acknowledges it once its clients have been told.
    case authorization(WireAuthorization, requestInProgress: Bool)
    /// The location services switch changed.
    case services(enabled: Bool)
    /// To an agent: ask the person; answer with `answerPrompt` and the same id.
    case prompt(id: UInt64, question: AgentQuestion)
    /// An event the daemon held for the app (it may have been launched for it): `sequence`
    /// increases per app across launches and restarts; the client hands each number to its
    /// delegates once and acknowledges with `acknowledgePending` after they returned.
    /// `kind` says which payload is set: `enter`/`exit` → `region`, `significant-change` →
    /// `location` (the delivery the significant-change service made), `visit` → `visit`,
    /// `beacon-enter`/`beacon-exit` → `beacon` (the region); `monitor:NAME` → `region` (a circular
    /// condition's change) or `beacon` and `beaconState` (a beacon condition's, decision 0053).
    case pending(
        sequence: UInt64, kind: String, region: WireRegionNotice?, location: WireDelivery? = nil,
        visit: WireVisit? = nil, beacon: BeaconRegionSpec? = nil, beaconState: Int? = nil)
}

extension DaemonEvent: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        let type = try c.type()
        switch type {
        case _ where WireClientEvent.types.contains(type):
            self = .client(try c.decode(UInt64.self, forKey: "client"), try WireClientEvent(type: type, from: c))
        case "authorization":
            self = .authorization(
                try c.decode(WireAuthorization.self, forKey: "authorization"),
                requestInProgress: try c.decode(Bool.self, forKey: "requestInProgress"))
        case "services": self = .services(enabled: try c.decode(Bool.self, forKey: "enabled"))
        case "prompt":
            self = .prompt(id: try c.decode(UInt64.self, forKey: "id"), question: try c.decode(AgentQuestion.self, forKey: "question"))
        case "pending":
            self = .pending(
                sequence: try c.decode(UInt64.self, forKey: "sequence"), kind: try c.decode(String.self, forKey: "kind"),
                region: try c.decodeIfPresent(WireRegionNotice.self, forKey: "region"),
                location: try c.decodeIfPresent(WireDelivery.self, forKey: "location"),
                visit: try c.decodeIfPresent(WireVisit.self, forKey: "visit"),
                beacon: try c.decodeIfPresent(BeaconRegionSpec.self, forKey: "beacon"),
                beaconState: try c.decodeIfPresent(Int.self, forKey: "beaconState"))
        default: throw c.unknown(type, of: "event")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        switch self {
        case let .client(client, event):
            try event.encode(into: &c)
            try c.encode(client, forKey: "client")
        case let .authorization(authorization, requestInProgress):
            try c.encode("authorization", forKey: "type")
            try c.encode(authorization, forKey: "authorization")
            try c.encode(requestInProgress, forKey: "requestInProgress")
        case let .services(enabled):
            try c.encode("services", forKey: "type")
            try c.encode(enabled, forKey: "enabled")
        case let .prompt(id, question):
            try c.encode("prompt", forKey: "type")
            try c.encode(id, forKey: "id")
            try c.encode(question, forKey: "question")
        case let .pending(sequence, kind, region, location, visit, beacon, beaconState):
            try c.encode("pending", forKey: "type")
            try c.encode(sequence, forKey: "sequence")
            try c.encode(kind, forKey: "kind")
            try c.encodeIfPresent(region, forKey: "region")
            try c.encodeIfPresent(location, forKey: "location")
            try c.encodeIfPresent(visit, forKey: "visit")
            try c.encodeIfPresent(beacon, forKey: "beacon")
            try c.encodeIfPresent(beaconState, forKey: "beaconState")
        }
    }
}
