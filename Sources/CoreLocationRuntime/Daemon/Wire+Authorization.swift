import CoreLocationDaemonProtocol
import CoreLocationEngine

// Authorization between the engine's vocabulary and the wire's (decision 0068); see Wire+Engine.swift.

extension WireAuthorization.Level {
    package init(_ level: AuthorizationLevel) {
        self = switch level {
        case .notDetermined: .notDetermined
        case .denied: .denied
        case .restricted: .restricted
        case .whenInUse: .whenInUse
        case .always: .always
        }
    }
}

extension AuthorizationLevel {
    package init(_ wire: WireAuthorization.Level) {
        self = switch wire {
        case .notDetermined: .notDetermined
        case .denied: .denied
        case .restricted: .restricted
        case .whenInUse: .whenInUse
        case .always: .always
        }
    }
}

extension WireAuthorization.Accuracy {
    package init(_ accuracy: AccuracyLevel) {
        self = switch accuracy {
        case .full: .full
        case .reduced: .reduced
        }
    }
}

extension AccuracyLevel {
    package init(_ wire: WireAuthorization.Accuracy) {
        self = switch wire {
        case .full: .full
        case .reduced: .reduced
        }
    }
}

extension WireAuthorization {
    package init(_ authorization: ClientAuthorization) {
        self.init(level: Level(authorization.level), accuracy: Accuracy(authorization.accuracy))
    }
}

extension ClientAuthorization {
    package init(_ wire: WireAuthorization) {
        self.init(level: AuthorizationLevel(wire.level), accuracy: AccuracyLevel(wire.accuracy))
    }
}

extension WireDecision {
    package init(_ decision: AuthorizationDecision) {
        self.init(
            appID: decision.appID, level: WireAuthorization.Level(decision.level),
            accuracy: WireAuthorization.Accuracy(decision.accuracy), decidedAt: decision.decidedAt,
            provisional: decision.provisional, usageDescription: decision.usageDescription)
    }
}

extension AuthorizationDecision {
    package init(_ wire: WireDecision) {
        self.init(
            appID: wire.appID, level: AuthorizationLevel(wire.level), accuracy: AccuracyLevel(wire.accuracy),
            decidedAt: wire.decidedAt, provisional: wire.provisional, usageDescription: wire.usageDescription)
    }
}

extension WireDefaultPolicy {
    package init(_ policy: DefaultPolicy) {
        self = switch policy {
        case .prompt: .prompt
        case .deny: .deny
        case .whenInUse: .whenInUse
        case .always: .always
        }
    }
}

extension DefaultPolicy {
    package init(_ wire: WireDefaultPolicy) {
        self = switch wire {
        case .prompt: .prompt
        case .deny: .deny
        case .whenInUse: .whenInUse
        case .always: .always
        }
    }
}
