import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationStorage
import Logging
import Synchronization

/// The administrator's ceiling (issue 37, item 4; decision 0092): when whoever administers the daemon (root, or the
/// user it runs as) sets the default policy `deny`, the apps of every other user read `.restricted` — whatever
/// their user decided, through `locationctl authorize` or their agent — and those users may not grant more. On a
/// per-user daemon every client is its administrator, so nothing changes there; on the system daemon the
/// members of the socket's group are bound.
extension DaemonCore {
    /// Whether the apps of `uid` are under the administrator's ceiling: every user but root and the daemon's own.
    func bindsToAdministrator(_ uid: UInt32) -> Bool {
        uid != 0 && uid != daemonUID
    }

    /// Whether the administrator's policy is `deny`: the daemon's own `CORELOCATION_DEFAULT_POLICY` (set by whoever
    /// starts it, so an administrator) wins over the stored default, as it does for the headless answer.
    static func readAdministratorDenies(
        environmentPolicy: DefaultPolicy?, store: AuthorizationStore?, logger: Logger
    ) -> Bool {
        if let environmentPolicy { return environmentPolicy == .deny }
        do {
            return try store?.defaultPolicy() == .deny
        } catch {
            // Unreadable: the headless answer falls back to the built-in policy too; failing closed here would
            // lock every user out for a storage fault they cannot mend.
            logger.error("Cannot read the default policy; no administrator's ceiling", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// The refusal of an `authorize` that would raise one of the caller's apps over the ceiling, or nil. Lowering
    /// (`deny`, `restricted`, `reset`) is always allowed.
    func ceilingRefusal(decision: String, peer: Peer) -> DaemonError? {
        guard decision == "always" || decision == "when-in-use", bindsToAdministrator(peer.identity.uid),
            administratorDenies.load(ordering: .sequentiallyConsistent)
        else { return nil }
        return DaemonError(
            .notPermitted,
            "the administrator's default policy is deny: apps of users other than root may not use location here")
    }

    /// After the stored default changed: sets or lifts the ceiling on every running app it binds. Each app's
    /// service tells its engine and its connections (its observers), as a decision change does.
    func administratorPolicyChanged() {
        let denies = Self.readAdministratorDenies(environmentPolicy: environmentPolicy, store: store, logger: logger)
        guard administratorDenies.exchange(denies, ordering: .sequentiallyConsistent) != denies else { return }
        // After the store: an app made from here on reads the new value in `makeApp`, one made before is in `apps`
        // (apps are made and listed under the same lock).
        let apps = state.withLock { Array($0.apps.values) }
        logger.notice("Administrator's ceiling changed", metadata: ["denies": "\(denies)"])
        for app in apps where bindsToAdministrator(app.key.uid) {
            app.authorization.setRestrictedByAdministrator(denies)
        }
    }
}
