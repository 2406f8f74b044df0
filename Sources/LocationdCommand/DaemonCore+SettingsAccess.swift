import CoreLocationDaemonProtocol
import CoreLocationRuntime
import Foundation

/// Who may send Settings requests (issue 37, decision 0085): the project's own `locationctl` (its `agent` is
/// `locationctl agent`), recognised by the executable the kernel names (`/proc/PID/exe`), never by anything the
/// client says. An app, whatever it claims, cannot authorize itself, answer its own prompt or stand in for the
/// user's agent.
extension DaemonCore {
    /// The executables whose connections are the Settings app: the locationctl beside this daemon (resolved once,
    /// from `/proc/self/exe`), and the one `CORELOCATION_SETTINGS_EXECUTABLE` in the daemon's own environment names
    /// (tests name their runner). Safe: only whoever starts the daemon sets its environment — root for the system
    /// unit, the user for their own daemon — and either already holds every power the Settings requests give.
    static let settingsExecutables: Set<String> = {
        var executables = Set<String>()
        if let sibling = siblingLocationctl { executables.insert(sibling) }
        if let named = ProcessInfo.processInfo.environment["CORELOCATION_SETTINGS_EXECUTABLE"], named.hasPrefix("/") {
            executables.insert(named)
        }
        return executables
    }()

    /// Whether the connection is the Settings app: its executable as the kernel read it is one of
    /// `settingsExecutables`. Where the kernel does not show it (another user's process, on the system daemon,
    /// which has no CAP_SYS_PTRACE since issue 37), the executable the hello declares stands in: refusing would
    /// leave every user but the daemon's own, root included, without `locationctl authorize` on the system daemon
    /// (found by `packaging/test-install.sh`). Such a claim is trusted only within the peer's kernel uid, the same
    /// trust as the same-uid spoofing decision 0011 accepts; a per-user daemon always reads the path.
    /// `PeerIdentity.executable` already is the kernel's path, else the checked declared one.
    ///
    /// And only once the connection echoed its hello's token (`confirmIdentity`): the executable is read after
    /// `connect()`, so a process could write its requests and then exec `locationctl` before the read; the token
    /// is made after the read, so such requests cannot carry it (decision 0011, connect-then-exec).
    func isSettingsClient(_ peer: Peer) -> Bool {
        Self.settingsExecutables.contains(peer.identity.executable) && peer.state.withLock { $0.identityConfirmed }
    }

    /// Whether the caller administers this daemon: root, or the user the daemon runs as (a per-user daemon's
    /// user). On the system daemon a member of the socket's group is neither.
    func isAdministrator(_ peer: Peer) -> Bool {
        peer.identity.uid == 0 || peer.identity.uid == daemonUID
    }

    /// The refusal of a Settings request from anything but `settingsExecutables`, or nil when it may go on.
    func settingsRefusal(_ request: DaemonRequest, from peer: Peer) -> DaemonError? {
        let name: String
        switch request {
        case .authorize: name = "authorize"
        case .setDefaultPolicy: name = "setDefaultPolicy"
        case .setServices: name = "setServices"
        case .registerAgent: name = "registerAgent"
        case .offerPrompts: name = "offerPrompts"
        case .setBackground: name = "setBackground"
        default: return nil
        }
        guard !isSettingsClient(peer) else { return nil }
        return DaemonError(
            .notPermitted,
            "\(name) is a Settings request: only locationctl, installed beside locationd, may send it")
    }
}
