import Foundation
import CoreLocationEngine
import CoreLocationStorage
import Logging
import Synchronization

/// The app's authorization, resolved the way the system does it on Apple's platforms, and the only
/// place that changes it. One per process (an app is one process on Linux).
///
/// Order of resolution (docs/decisions/0003-authorization-on-linux.md):
/// 1. a decision made in this process ("Allow Once", a default policy applied without a terminal);
/// 2. the decision stored in SQLite (`locationctl authorize` or an earlier prompt);
/// 3. `.notDetermined` until the app requests authorization; then the terminal prompt, or without
///    a terminal the default policy: `$CORELOCATION_DEFAULT_POLICY`, else the stored default
///    (`locationctl authorize --default …`), else the built-in one: "Allow Once" when every
///    configured source is simulated (simulated positions reveal nothing about the user), otherwise
///    "Don't Allow" for this run only.
package final class AuthorizationService: Sendable {
    package struct State: Sendable {
        var level: AuthorizationLevel = .notDetermined
        var accuracy: AccuracyLevel = .full
        /// Allow Once or a default policy: lasts until the process exits, never stored.
        var isSessionOnly = false
        /// The one-time when-in-use → always upgrade is still available.
        var canUpgradeToAlways = false
        var temporaryFullAccuracy = false
        var requestInProgress = false
        var observers: [UInt64: @Sendable (ClientAuthorization) -> Void] = [:]
        var nextObserver: UInt64 = 0
        /// The global Location Services switch; off reads as denied without losing the decision.
        var services = LocationServicesSwitch(isEnabled: true)
        /// The administrator's ceiling (decision 0092): a policy the app's user did not set and cannot raise.
        var restrictedByAdministrator = false

        var effective: ClientAuthorization {
            // `.restricted` is Apple's word for "a policy, not the user, forbids it": the decision is kept, not used.
            let shown: AuthorizationLevel = restrictedByAdministrator ? .restricted : level
            return services.apply(
                to: ClientAuthorization(level: shown, accuracy: temporaryFullAccuracy ? .full : accuracy))
        }
    }

    package let identity: AppIdentity
    package let store: AuthorizationStore?
    private let prompter: (any AuthorizationPrompter)?
    private let environmentPolicy: DefaultPolicy?
    private let sourcesAreSimulated: Bool
    private let logger: Logger
    package let state = Mutex(State())
    /// Set when the app is a client of locationd: requests go to the daemon, which decides and
    /// tells the outcome back through `applyRemote(_:requestInProgress:)`.
    package let broker: (any AuthorizationBroker)?

    package init(
        identity: AppIdentity,
        store: AuthorizationStore?,
        prompter: (any AuthorizationPrompter)?,
        environmentPolicy: DefaultPolicy?,
        sourcesAreSimulated: Bool,
        services: LocationServicesSwitch = LocationServicesSwitch(environment: ProcessInfo.processInfo.environment),
        logger: Logger,
        broker: (any AuthorizationBroker)? = nil
    ) {
        self.broker = broker
        self.identity = identity
        self.store = store
        self.prompter = prompter
        self.environmentPolicy = environmentPolicy
        self.sourcesAreSimulated = sourcesAreSimulated
        self.logger = logger
        state.withLock { $0.services = services }
        reloadStoredDecision()
    }

    package var authorization: ClientAuthorization { state.withLock { $0.effective } }
    package var isRequestInProgress: Bool { state.withLock { $0.requestInProgress } }
    /// Whether the global Location Services switch is on.
    package var servicesEnabled: Bool { state.withLock { $0.services.isEnabled } }

    /// Turns the global switch on or off (the daemon's switch, or a test's); observers hear the change.
    package func setServices(_ services: LocationServicesSwitch) {
        update { $0.services = services }
    }

    /// Whether an administrator's policy forbids this app location whatever its user decides (decision 0092).
    package var isRestrictedByAdministrator: Bool { state.withLock { $0.restrictedByAdministrator } }

    /// Sets or lifts the administrator's ceiling (locationd, for the apps of users who do not administer it);
    /// observers hear the change. The stored decision is untouched: lifting the ceiling gives it back.
    package func setRestrictedByAdministrator(_ restricted: Bool) {
        update { $0.restrictedByAdministrator = restricted }
    }

    /// Requests while Location Services are off change nothing (iOS offers to open Settings); nor do they under
    /// an administrator's ceiling: no prompt could change the outcome, so none is shown.
    private func servicesAllowRequests() -> Bool {
        if isRestrictedByAdministrator {
            logger.notice(
                "An administrator's policy forbids location to this app; the authorization request is ignored.",
                metadata: ["app": "\(identity.id)"]
            )
            return false
        }
        guard !servicesEnabled else { return true }
        logger.notice(
            "Location Services are off (CORELOCATION_SERVICES=off); the authorization request is ignored.",
            metadata: ["app": "\(identity.id)"]
        )
        return false
    }

    /// Calls `handler` (on an arbitrary thread) after every change. Returns a token for `removeObserver`.
    package func addObserver(_ handler: @escaping @Sendable (ClientAuthorization) -> Void) -> UInt64 {
        state.withLock { state in
            state.nextObserver += 1
            state.observers[state.nextObserver] = handler
            return state.nextObserver
        }
    }

    package func removeObserver(_ token: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    /// Re-reads the stored decision (after `locationctl authorize` changed it, say). A session-only
    /// grant (Allow Once, a default policy) is kept unless `overridingSession`: a decision the person
    /// made in Settings replaces it, as on iOS.
    package func reloadStoredDecision(overridingSession: Bool = false) {
        guard broker == nil else { return }
        let stored: AuthorizationDecision?
        do {
            stored = try store?.decision(for: identity.id)
        } catch {
            logger.error("Cannot read the authorization database", metadata: ["error": "\(error)"])
            stored = nil
        }
        update { state in
            if overridingSession { state.isSessionOnly = false }
            guard !state.isSessionOnly else { return }
            if let stored {
                state.level = stored.level
                state.accuracy = stored.accuracy
                state.canUpgradeToAlways = stored.level == .whenInUse && stored.provisional
            } else {
                state.level = .notDetermined
                state.accuracy = .full
                state.canUpgradeToAlways = false
            }
        }
    }

    // MARK: Requests

    /// - Parameter fallbackDescription: the text to ask with when the app's Info.plist has none: a program that
    ///   asks through another protocol (GeoClue, gpsd) has none to give, and may share its app with a socket client
    ///   of the same executable (decision 0088).
    package func requestWhenInUse(fallbackDescription: String? = nil) {
        guard servicesAllowRequests() else { return }
        guard state.withLock({ $0.level == .notDetermined && !$0.requestInProgress }) else { return }
        guard let description = identity.whenInUseDescription ?? fallbackDescription else {
            logger.error(
                """
                This app has attempted to access privacy-sensitive data without a usage description. \
                The app's Info.plist must contain an “\(AppIdentity.whenInUseKey)” key with a string value \
                explaining to the user how the app uses this data.
                """
            )
            return
        }
        if let broker { return brokerRequest(broker, always: false) }
        ask(.whenInUse(app: identity.displayName, usageDescription: description,
                       preciseByDefault: !identity.prefersReducedAccuracy), wantsAlways: false)
    }

    package func requestAlways() {
        guard servicesAllowRequests() else { return }
        let snapshot = state.withLock { $0 }
        guard !snapshot.requestInProgress else { return }
        guard let always = identity.alwaysDescription, identity.whenInUseDescription != nil else {
            logger.error(
                """
                This app has attempted to access privacy-sensitive data without a usage description. \
                The app's Info.plist must contain both “\(AppIdentity.alwaysKey)” and \
                “\(AppIdentity.whenInUseKey)” keys with string values explaining to the user how the app \
                uses this data.
                """
            )
            return
        }
        if let broker { return brokerRequest(broker, always: true) }
        switch snapshot.level {
        case .notDetermined:
            ask(.whenInUse(app: identity.displayName, usageDescription: always,
                           preciseByDefault: !identity.prefersReducedAccuracy), wantsAlways: true)
        case .whenInUse where snapshot.canUpgradeToAlways && !snapshot.isSessionOnly:
            ask(.upgradeToAlways(app: identity.displayName, usageDescription: always), wantsAlways: true)
        default:
            return
        }
    }

    /// The daemon decides; until its answer (an authorization event, always sent for a request)
    /// the request reads as in progress, as while a prompt is shown.
    private func brokerRequest(_ broker: any AuthorizationBroker, always: Bool) {
        state.withLock { $0.requestInProgress = true }
        broker.requestAuthorization(always: always)
    }

    /// Asks for precise location until the process exits. The error is a `CLError` code's raw value.
    package func requestTemporaryFullAccuracy(purposeKey: String, completion: @escaping @Sendable (CLErrorCodeValue?) -> Void) {
        let snapshot = state.withLock { $0.effective }
        guard snapshot.allowsLocation else { return completion(.denied) }
        guard snapshot.accuracy == .reduced else { return completion(nil) }
        guard let purpose = identity.temporaryUsageDescriptions[purposeKey], !purpose.isEmpty else {
            logger.error(
                """
                The app's Info.plist must contain a “\(AppIdentity.temporaryKey)” dictionary with the \
                purpose key “\(purposeKey)”.
                """
            )
            return completion(.promptDeclined)
        }
        if let broker {
            return broker.requestTemporaryFullAccuracy(purposeKey: purposeKey) { code in
                completion(code.flatMap(CLErrorCodeValue.init(rawValue:)))
            }
        }
        let question = AuthorizationQuestion.temporaryFullAccuracy(app: identity.displayName, purpose: purpose)
        runPrompt(question) { [self] answer in
            if case .allowOnce = answer {
                update { $0.temporaryFullAccuracy = true }
            }
            completion(nil)
        }
    }

    // MARK: Resolution

    private func ask(_ question: AuthorizationQuestion, wantsAlways: Bool) {
        runPrompt(question) { [self] answer in
            if let answer {
                apply(answer, wantsAlways: wantsAlways)
            } else {
                applyDefaultPolicy(wantsAlways: wantsAlways, question: question)
            }
        }
    }

    /// Asks on a background thread (the prompt blocks on the terminal), like the system prompt that
    /// never blocks the app. Without a prompter the answer is nil at once.
    private func runPrompt(_ question: AuthorizationQuestion, then: @escaping @Sendable (AuthorizationAnswer?) -> Void) {
        guard let prompter else { return then(nil) }
        if prompter.answersImmediately {
            return then(prompter.ask(question))
        }
        state.withLock { $0.requestInProgress = true }
        notify()
        Thread.detachNewThread { [self] in
            let answer = prompter.ask(question)
            state.withLock { $0.requestInProgress = false }
            then(answer)
            notify()
        }
    }

    private func apply(_ answer: AuthorizationAnswer, wantsAlways: Bool) {
        switch answer {
        case let .allowOnce(precise):
            update { state in
                if state.level == .notDetermined {
                    state.level = .whenInUse
                    state.accuracy = precise ? .full : .reduced
                    state.isSessionOnly = true
                    state.canUpgradeToAlways = false
                }
            }
        case let .allowWhileUsing(precise):
            persist(level: .whenInUse, accuracy: precise ? .full : .reduced, provisional: true)
        case .dontAllow:
            persist(level: .denied, accuracy: state.withLock { $0.accuracy }, provisional: false)
        case .changeToAlways:
            persist(level: .always, accuracy: state.withLock { $0.accuracy }, provisional: false)
        case .keepWhileUsing:
            persist(level: .whenInUse, accuracy: state.withLock { $0.accuracy }, provisional: false)
        }
    }

    private func persist(level: AuthorizationLevel, accuracy: AccuracyLevel, provisional: Bool) {
        let decision = AuthorizationDecision(
            appID: identity.id, level: level, accuracy: accuracy, decidedAt: Date(), provisional: provisional,
            usageDescription: identity.whenInUseDescription
        )
        do {
            try store?.save(decision)
        } catch {
            logger.error("Cannot store the authorization decision; it lasts for this run only", metadata: ["error": "\(error)"])
        }
        update { state in
            state.level = level
            state.accuracy = accuracy
            state.isSessionOnly = store == nil
            state.canUpgradeToAlways = level == .whenInUse && provisional
        }
    }

    private func applyDefaultPolicy(wantsAlways: Bool, question: AuthorizationQuestion) {
        if case .temporaryFullAccuracy = question { return }
        let stored: DefaultPolicy?
        do { stored = try store?.defaultPolicy() } catch { stored = nil }
        let policy = environmentPolicy ?? stored
        let level: AuthorizationLevel?
        switch policy {
        case .deny?: level = .denied
        case .whenInUse?: level = .whenInUse
        case .always?: level = wantsAlways ? .always : .whenInUse
        case .prompt?: level = nil
        case nil: level = sourcesAreSimulated ? .whenInUse : .denied
        }
        guard let level else {
            logger.warning(
                "No terminal to ask for location authorization; it stays not determined.",
                metadata: ["hint": "locationctl authorize \(identity.id) when-in-use"]
            )
            return
        }
        logger.notice(
            "No terminal to ask for location authorization; applying the default policy for this run.",
            metadata: ["level": "\(level.rawValue)", "policy": "\(policy?.rawValue ?? "built-in")"]
        )
        update { state in
            guard state.level == .notDetermined || (wantsAlways && state.level == .whenInUse) else { return }
            state.level = level
            state.isSessionOnly = true
            state.canUpgradeToAlways = false
        }
    }

    private func update(_ change: (inout State) -> Void) {
        let changed: Bool = state.withLock { state in
            let before = state.effective
            change(&state)
            return before != state.effective
        }
        if changed { notify() }
    }

    package func notifyObservers() { notify() }

    private func notify() {
        let (authorization, observers) = state.withLock { ($0.effective, Array($0.observers.values)) }
        for observer in observers { observer(authorization) }
    }
}

/// `CLError.Code` raw values the authorization service reports, kept here so the service does not
/// depend on the façade's error type.
package enum CLErrorCodeValue: Int, Sendable {
    case denied = 1
    case promptDeclined = 18
}
