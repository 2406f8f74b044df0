/// The requests' JSON: `{"type":NAME,…}` with the fields below. Every name is written here, so a renamed
/// case changes no byte on the wire (decision 0068).
extension DaemonRequest: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        let type = try c.type()
        switch type {
        case "register":
            self = .register(client: try c.decode(UInt64.self, forKey: "client"), label: try c.decode(String.self, forKey: "label"))
        case "command":
            self = .command(
                client: try c.decode(UInt64.self, forKey: "client"), command: try c.decode(WireCommand.self, forKey: "command"))
        case "requestAuthorization": self = .requestAuthorization(always: try c.decode(Bool.self, forKey: "always"))
        case "requestTemporaryFullAccuracy":
            self = .requestTemporaryFullAccuracy(purposeKey: try c.decode(String.self, forKey: "purposeKey"))
        case "authorize":
            self = .authorize(
                app: try c.decode(String.self, forKey: "app"), decision: try c.decode(String.self, forKey: "decision"),
                accuracy: try c.decodeIfPresent(String.self, forKey: "accuracy"))
        case "decisions": self = .decisions
        case "setDefaultPolicy": self = .setDefaultPolicy(try c.decodeIfPresent(String.self, forKey: "policy"))
        case "setServices": self = .setServices(enabled: try c.decode(Bool.self, forKey: "enabled"))
        case "status": self = .status
        case "acknowledge": self = .acknowledge(sequence: try c.decode(UInt64.self, forKey: "sequence"))
        case "ping": self = .ping
        case "confirmIdentity": self = .confirmIdentity(token: try c.decode(String.self, forKey: "token"))
        case "monitoredRegions": self = .monitoredRegions
        case "monitorConditions": self = .monitorConditions(name: try c.decode(String.self, forKey: "name"))
        case "registerAgent": self = .registerAgent
        case "offerPrompts": self = .offerPrompts
        case "answerPrompt":
            self = .answerPrompt(
                id: try c.decode(UInt64.self, forKey: "id"), answer: try c.decodeIfPresent(AgentAnswer.self, forKey: "answer"))
        case "receivePending": self = .receivePending
        case "handingPending":
            self = .handingPending(
                sequence: try c.decode(UInt64.self, forKey: "sequence"),
                channel: try c.decodeIfPresent(PendingChannel.self, forKey: "channel"))
        case "acknowledgePending":
            self = .acknowledgePending(
                sequence: try c.decode(UInt64.self, forKey: "sequence"),
                channel: try c.decodeIfPresent(PendingChannel.self, forKey: "channel"))
        case "background": self = .background
        case "setBackground":
            self = .setBackground(app: try c.decode(String.self, forKey: "app"), enabled: try c.decode(Bool.self, forKey: "enabled"))
        case "holdSession": self = .holdSession(try c.decode(Bool.self, forKey: "held"))
        case "monitorBeaconRegion": self = .monitorBeaconRegion(try c.decode(BeaconRegionSpec.self, forKey: "region"))
        case "stopMonitoringBeaconRegion":
            self = .stopMonitoringBeaconRegion(
                identifier: try c.decode(String.self, forKey: "identifier"),
                monitor: try c.decodeIfPresent(String.self, forKey: "monitor"))
        case "beaconRegions": self = .beaconRegions
        case "beaconRegionState": self = .beaconRegionState(identifier: try c.decode(String.self, forKey: "identifier"))
        case "monitorBeaconConditions": self = .monitorBeaconConditions(name: try c.decode(String.self, forKey: "name"))
        default: throw c.unknown(type, of: "request")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.encode(typeName, forKey: "type")
        switch self {
        case let .register(client, label):
            try c.encode(client, forKey: "client")
            try c.encode(label, forKey: "label")
        case let .command(client, command):
            try c.encode(client, forKey: "client")
            try c.encode(command, forKey: "command")
        case let .requestAuthorization(always): try c.encode(always, forKey: "always")
        case let .requestTemporaryFullAccuracy(purposeKey): try c.encode(purposeKey, forKey: "purposeKey")
        case let .authorize(app, decision, accuracy):
            try c.encode(app, forKey: "app")
            try c.encode(decision, forKey: "decision")
            try c.encodeIfPresent(accuracy, forKey: "accuracy")
        case let .setDefaultPolicy(policy): try c.encodeIfPresent(policy, forKey: "policy")
        case let .setServices(enabled): try c.encode(enabled, forKey: "enabled")
        case let .acknowledge(sequence): try c.encode(sequence, forKey: "sequence")
        case let .confirmIdentity(token): try c.encode(token, forKey: "token")
        case let .monitorConditions(name), let .monitorBeaconConditions(name): try c.encode(name, forKey: "name")
        case let .answerPrompt(id, answer):
            try c.encode(id, forKey: "id")
            try c.encodeIfPresent(answer, forKey: "answer")
        case let .handingPending(sequence, channel), let .acknowledgePending(sequence, channel):
            try c.encode(sequence, forKey: "sequence")
            try c.encodeIfPresent(channel, forKey: "channel")
        case let .setBackground(app, enabled):
            try c.encode(app, forKey: "app")
            try c.encode(enabled, forKey: "enabled")
        case let .holdSession(held): try c.encode(held, forKey: "held")
        case let .monitorBeaconRegion(region): try c.encode(region, forKey: "region")
        case let .stopMonitoringBeaconRegion(identifier, monitor):
            try c.encode(identifier, forKey: "identifier")
            try c.encodeIfPresent(monitor, forKey: "monitor")
        case let .beaconRegionState(identifier): try c.encode(identifier, forKey: "identifier")
        case .decisions, .status, .ping, .monitoredRegions, .registerAgent, .offerPrompts, .receivePending, .background,
            .beaconRegions:
            break
        }
    }

    /// The request's `type` on the wire.
    public var typeName: String {
        switch self {
        case .register: "register"
        case .command: "command"
        case .requestAuthorization: "requestAuthorization"
        case .requestTemporaryFullAccuracy: "requestTemporaryFullAccuracy"
        case .authorize: "authorize"
        case .decisions: "decisions"
        case .setDefaultPolicy: "setDefaultPolicy"
        case .setServices: "setServices"
        case .status: "status"
        case .acknowledge: "acknowledge"
        case .ping: "ping"
        case .monitoredRegions: "monitoredRegions"
        case .monitorConditions: "monitorConditions"
        case .registerAgent: "registerAgent"
        case .offerPrompts: "offerPrompts"
        case .answerPrompt: "answerPrompt"
        case .receivePending: "receivePending"
        case .handingPending: "handingPending"
        case .acknowledgePending: "acknowledgePending"
        case .background: "background"
        case .setBackground: "setBackground"
        case .holdSession: "holdSession"
        case .monitorBeaconRegion: "monitorBeaconRegion"
        case .stopMonitoringBeaconRegion: "stopMonitoringBeaconRegion"
        case .beaconRegions: "beaconRegions"
        case .beaconRegionState: "beaconRegionState"
        case .monitorBeaconConditions: "monitorBeaconConditions"
        case .confirmIdentity: "confirmIdentity"
        }
    }
}
