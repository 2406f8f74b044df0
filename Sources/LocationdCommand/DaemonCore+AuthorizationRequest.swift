import CoreLocationRuntime
import CoreLocationStorage
import Foundation

/// A background app's authorization across a daemon restart (issue 37). The headless policy's answer (no agent, no
/// stored decision: `CORELOCATION_DEFAULT_POLICY`, the stored default or the built-in policy) is a session-only grant,
/// never stored as the person's decision: a changed policy or a ceiling applies to it, and an agent registered later
/// still asks. A killed app's `DaemonLink` asks again when it reconnects; an app that no process runs did not, so a
/// restarted daemon stored none of its events until the person started it again. The request the app made is kept
/// with its launch target and, at the restart, put again to the policy in force, as the app would at its next start.
extension DaemonCore {
    /// The app asked (`always` or When In Use): kept in memory, and with its launch target when it has one.
    func rememberAuthorizationRequest(_ app: App, always: Bool) {
        app.authorizationRequest.withLock { request in request = always || request == true }
        storeAuthorizationRequest(app)
    }

    /// Stores the app's last request with its launch target (a no-op without either).
    func storeAuthorizationRequest(_ app: App) {
        guard let backgroundStore, let always = app.authorizationRequest.withLock({ $0 }) else { return }
        do {
            try backgroundStore.setAuthorizationRequest(always: always, uid: app.key.uid, appID: app.key.appID)
        } catch {
            logger.error("Cannot store the authorization request", metadata: ["app": "\(app.key)", "error": "\(error)"])
        }
    }

    /// At the daemon's start, for an app it watches in the background: no decision of the person's (none stored) but a
    /// request stored, the request is made again, so the policy in force answers it as it did before the restart.
    func askPolicyAgain(_ app: App) {
        guard let backgroundStore, effectiveAuthorization(app).level == .notDetermined else { return }
        let request: Bool?
        do { request = try backgroundStore.authorizationRequest(uid: app.key.uid, appID: app.key.appID) } catch {
            logger.error("Cannot read the authorization request", metadata: ["app": "\(app.key)", "error": "\(error)"])
            return
        }
        guard let always = request else { return }
        app.authorizationRequest.withLock { $0 = always }
        logger.info(
            "Asking the policy again for a background app", metadata: ["app": "\(app.key)", "always": "\(always)"])
        if always { app.authorization.requestAlways() } else { app.authorization.requestWhenInUse() }
    }
}
