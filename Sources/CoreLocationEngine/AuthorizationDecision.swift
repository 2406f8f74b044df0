import Foundation

/// How far an app may use location, as the iOS Settings app records it per app.
///
/// The raw values are the words stored on disk and shown by `locationctl`; they are part of the
/// storage format, so renaming a case needs a migration.
public enum AuthorizationLevel: String, Codable, Sendable, CaseIterable {
    /// The user has not been asked yet.
    case notDetermined
    /// The user said no.
    case denied
    /// A policy (not the user) forbids location for this app.
    case restricted
    /// Allowed while the app is in use (on Linux: while the process runs in the foreground).
    case whenInUse
    /// Allowed at any time.
    case always
}

/// Whether the app receives full-accuracy or reduced (approximate, kilometre-scale) positions.
public enum AccuracyLevel: String, Codable, Sendable, CaseIterable {
    case full
    case reduced
}

/// One app's stored authorization, as the iOS Settings app keeps it.
///
/// `appID` is the app's bundle identifier, or the absolute path of its executable when it has
/// none.
public struct AuthorizationDecision: Codable, Sendable, Hashable {
    /// Bundle identifier, or the executable's absolute path.
    public var appID: String
    public var level: AuthorizationLevel
    public var accuracy: AccuracyLevel
    /// When the user (or a policy) made the decision, wall clock.
    public var decidedAt: Date
    /// When-in-use was granted with a one-time chance to upgrade to always later without asking
    /// again, as iOS's provisional always authorization.
    public var provisional: Bool
    /// What the app told the user when it asked (its usage description), for listings.
    public var usageDescription: String?

    public init(
        appID: String,
        level: AuthorizationLevel,
        accuracy: AccuracyLevel = .full,
        decidedAt: Date,
        provisional: Bool = false,
        usageDescription: String? = nil
    ) {
        self.appID = appID
        self.level = level
        self.accuracy = accuracy
        self.decidedAt = decidedAt
        self.provisional = provisional
        self.usageDescription = usageDescription
    }
}

/// What applies to an app with no stored decision when no terminal can ask the user.
///
/// The raw values are the words `locationctl` accepts and the storage keeps.
public enum DefaultPolicy: String, Codable, Sendable, CaseIterable {
    /// Ask when a terminal is available; otherwise leave the app `notDetermined`.
    case prompt
    case deny
    case whenInUse = "when-in-use"
    case always
}
