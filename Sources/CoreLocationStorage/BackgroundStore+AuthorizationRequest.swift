import GRDB

/// What an app with a launch target last asked for (issue 37): a decision the headless policy gave is the policy's
/// answer for the daemon's run, never stored as the person's decision, so a restarted daemon asks the policy again for
/// the app, with the request the app made (Always or When In Use), as the app would at its next start.
extension BackgroundStore {
    /// `launchTarget.authorizationRequest`: `always`, `when-in-use`, or NULL (the app asked nothing).
    static func addAuthorizationRequest(_ db: Database) throws {
        try db.alter(table: "launchTarget") { table in
            table.add(column: "authorizationRequest", .text)
        }
    }

    /// The request the app made last (`true`: Always), nil when it made none or has no launch target.
    public func authorizationRequest(uid: UInt32, appID: String) throws -> Bool? {
        try database.read("reading the authorization request of \(appID)") { db in
            let text = try String.fetchOne(
                db, sql: "SELECT authorizationRequest FROM launchTarget WHERE uid = ? AND appID = ?",
                arguments: [Int64(uid), appID])
            return text.map { $0 == Self.always }
        }
    }

    /// Records the app's request; Always is kept over a later When In Use (an app that asked for Always may ask for
    /// When In Use at its next start, as iOS apps do, and still wants Always). False when the app has no launch target.
    @discardableResult
    public func setAuthorizationRequest(always: Bool, uid: UInt32, appID: String) throws -> Bool {
        try database.write("storing the authorization request of \(appID)") { db in
            try db.execute(
                sql: """
                    UPDATE launchTarget SET authorizationRequest = CASE
                        WHEN authorizationRequest = ? THEN authorizationRequest ELSE ? END
                    WHERE uid = ? AND appID = ?
                    """,
                arguments: [Self.always, always ? Self.always : Self.whenInUse, Int64(uid), appID])
            return db.changesCount > 0
        }
    }

    private static let always = "always"
    private static let whenInUse = "when-in-use"
}
