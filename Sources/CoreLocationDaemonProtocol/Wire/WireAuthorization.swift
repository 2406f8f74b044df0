import Foundation

/// The authorization an app holds: `level` and `accuracy`.
public struct WireAuthorization: Hashable, Sendable {
    public enum Level: String, Codable, Hashable, Sendable {
        case notDetermined
        case denied
        case restricted
        case whenInUse
        case always
    }

    public enum Accuracy: String, Codable, Hashable, Sendable {
        case full
        case reduced
    }

    public var level: Level
    public var accuracy: Accuracy

    public init(level: Level, accuracy: Accuracy = .full) {
        self.level = level
        self.accuracy = accuracy
    }
}

extension WireAuthorization: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        level = try c.decode(Level.self, forKey: "level")
        accuracy = try c.decode(Accuracy.self, forKey: "accuracy")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.encode(level, forKey: "level")
        try c.encode(accuracy, forKey: "accuracy")
    }
}

/// One app's stored decision, as `locationctl authorize --list` shows it; `decidedAt` is seconds since
/// 2001-01-01 00:00:00 UTC; `usageDescription` absent when the app gave none.
public struct WireDecision: Hashable, Sendable {
    public var appID: String
    public var level: WireAuthorization.Level
    public var accuracy: WireAuthorization.Accuracy
    public var decidedAt: Date
    public var provisional: Bool
    public var usageDescription: String?

    public init(
        appID: String, level: WireAuthorization.Level, accuracy: WireAuthorization.Accuracy, decidedAt: Date,
        provisional: Bool, usageDescription: String?
    ) {
        self.appID = appID
        self.level = level
        self.accuracy = accuracy
        self.decidedAt = decidedAt
        self.provisional = provisional
        self.usageDescription = usageDescription
    }
}

extension WireDecision: Codable {
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: WireKey.self)
        appID = try c.decode(String.self, forKey: "appID")
        level = try c.decode(WireAuthorization.Level.self, forKey: "level")
        accuracy = try c.decode(WireAuthorization.Accuracy.self, forKey: "accuracy")
        decidedAt = try c.decode(Date.self, forKey: "decidedAt")
        provisional = try c.decode(Bool.self, forKey: "provisional")
        usageDescription = try c.decodeIfPresent(String.self, forKey: "usageDescription")
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: WireKey.self)
        try c.encode(appID, forKey: "appID")
        try c.encode(level, forKey: "level")
        try c.encode(accuracy, forKey: "accuracy")
        try c.encode(decidedAt, forKey: "decidedAt")
        try c.encode(provisional, forKey: "provisional")
        try c.encodeIfPresent(usageDescription, forKey: "usageDescription")
    }
}

/// What applies to an app nobody was asked about when no terminal can ask (`locationctl authorize --default`).
public enum WireDefaultPolicy: String, Codable, Hashable, Sendable {
    case prompt
    case deny
    case whenInUse = "when-in-use"
    case always
}
