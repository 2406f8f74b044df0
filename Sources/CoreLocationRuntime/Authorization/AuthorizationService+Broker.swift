import CoreLocationEngine
import CoreLocationStorage
import Logging

/// Where an app's authorization requests go when locationd decides them (docs/decisions/0010).
package protocol AuthorizationBroker: Sendable {
    func requestAuthorization(always: Bool)
    /// `completion` hears nil or a `CLError.Code` raw value.
    func requestTemporaryFullAccuracy(purposeKey: String, completion: @escaping @Sendable (Int?) -> Void)
}

extension AuthorizationService {
    /// The service locationd keeps for one app: the same rules, no terminal of its own (prompts
    /// fall to the default policy; an agent answers them once issue 10's agent exists).
    package static func headless(
        identity: AppIdentity, store: AuthorizationStore?, environmentPolicy: DefaultPolicy?,
        sourcesAreSimulated: Bool, logger: Logger
    ) -> AuthorizationService {
        AuthorizationService(
            identity: identity, store: store, prompter: nil, environmentPolicy: environmentPolicy,
            sourcesAreSimulated: sourcesAreSimulated, logger: logger
        )
    }

    /// Takes the authorization locationd decided for this app (daemon mode only).
    package func applyRemote(_ authorization: ClientAuthorization, requestInProgress: Bool) {
        let changed: Bool = state.withLock { state in
            let before = (state.effective, state.requestInProgress)
            state.level = authorization.level
            state.accuracy = authorization.accuracy
            state.temporaryFullAccuracy = false
            state.requestInProgress = requestInProgress
            // Observers hear a change, or the end of a request (as after an in-process prompt);
            // not the start of one, nor the same authorization twice.
            return before.0 != state.effective || (before.1 && !requestInProgress)
        }
        if changed { notifyObservers() }
    }

    /// Whether an app that asked for `always` may be asked again (the one-time upgrade).
    package var isSessionOnly: Bool { state.withLock { $0.isSessionOnly } }
}

extension AuthorizationService {
    /// `requestTemporaryFullAccuracy` for locationd: `completion` hears nil or a `CLError.Code` raw value.
    package func requestTemporaryFullAccuracyCode(purposeKey: String, completion: @escaping @Sendable (Int?) -> Void) {
        requestTemporaryFullAccuracy(purposeKey: purposeKey) { completion($0?.rawValue) }
    }
}
