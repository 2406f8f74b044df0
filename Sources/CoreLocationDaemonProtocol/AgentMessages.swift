/// An authorization prompt the daemon hands to the user's agent (`locationctl agent`), the Linux
/// stand-in for the system's alert: the agent shows it in its terminal and answers.
public struct AgentQuestion: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable {
        /// Allow Once / Allow While Using App / Don't Allow, with the Precise toggle.
        case whenInUse = "when-in-use"
        /// Change to Always Allow / Keep Only While Using.
        case upgradeToAlways = "upgrade-to-always"
        /// Temporary precise location: Allow Once / Don't Allow.
        case temporaryFullAccuracy = "temporary-full-accuracy"
    }

    /// The names on the wire.
    enum CodingKeys: String, CodingKey {
        case kind, app, appID, text, preciseByDefault
    }

    public var kind: Kind
    /// The app's display name.
    public var app: String
    /// The app as the daemon names it (bundle identifier or executable path).
    public var appID: String
    /// The usage description (or, for temporary full accuracy, the purpose) from the app's Info.plist.
    public var text: String
    public var preciseByDefault: Bool

    public init(kind: Kind, app: String, appID: String, text: String, preciseByDefault: Bool) {
        self.kind = kind
        self.app = app
        self.appID = appID
        self.text = text
        self.preciseByDefault = preciseByDefault
    }
}

/// The person's answer to an `AgentQuestion`.
public struct AgentAnswer: Codable, Hashable, Sendable {
    public enum Choice: String, Codable, Hashable, Sendable, CaseIterable {
        case allowOnce = "allow-once"
        case allowWhileUsing = "allow-while-using"
        case dontAllow = "dont-allow"
        case changeToAlways = "change-to-always"
        case keepWhileUsing = "keep-while-using"
    }

    enum CodingKeys: String, CodingKey {
        case choice, precise
    }

    public var choice: Choice
    /// The Precise toggle (for allow-once and allow-while-using).
    public var precise: Bool

    public init(_ choice: Choice, precise: Bool = true) {
        self.choice = choice
        self.precise = precise
    }
}
