import CoreLocationDaemonProtocol
import CoreLocationDBus
import Foundation
import Synchronization

extension GeoClueService {
    /// `AddAgent`: the caller becomes its user's GeoClue agent (GNOME Shell's, or any program implementing
    /// `org.freedesktop.GeoClue2.Agent`), asked like `locationctl agent` is when the user has none of those. The
    /// user is the bus's, from the kernel; a second agent of the same user is refused while the first is there.
    func addAgent(_ sender: String) async -> DBusMethodResult {
        let uid: UInt32
        do { uid = try await bus.connectionUnixUser(of: sender) } catch {
            return .error(name: DBusMethodResult.failedName, message: "cannot learn the caller's user: \(error)")
        }
        let registered = core.agents.registerRemote(uid: uid, owner: sender) { [weak self] question in
            self?.askAgent(sender, question)
        }
        guard registered else {
            return .error(name: Self.accessDenied, message: "another GeoClue agent of user \(uid) is registered")
        }
        state.withLock { $0.agents[uid] = sender }
        logger.info("GeoClue agent registered", metadata: ["uid": "\(uid)", "name": "\(sender)"])
        return .empty
    }

    /// `AuthorizeApp(desktop_id, req_accuracy_level)` on the agent, waited for on the prompt thread (the
    /// authorization service's; never the bus's). Only the first question has an answer in GeoClue's words: the
    /// others (Always, temporary precision) are dismissed, and the app's default policy applies.
    private func askAgent(_ agent: String, _ question: AgentQuestion) -> AgentAnswer? {
        guard question.kind == .whenInUse else { return nil }
        let answer = Mutex<AgentAnswer?>(nil)
        let done = DispatchSemaphore(value: 0)
        let timeout = core.agents.timeout
        do {
            try bus.call(
                destination: agent, path: Self.agentPath, interface: Self.agentInterface, member: "AuthorizeApp",
                arguments: [.string(question.app), .uint32(GeoClueLevel.exact.rawValue)],
                timeout: .milliseconds(Int64(timeout * 1000))
            ) { result in
                defer { done.signal() }
                guard case let .success(reply) = result, reply.count == 2, let authorized = reply[0].bool,
                    let level = reply[1].integer
                else { return }
                let allowed = GeoClueLevel(requested: UInt32(clamping: level))
                answer.withLock {
                    $0 = authorized && allowed != .none
                        ? AgentAnswer(.allowWhileUsing, precise: !allowed.isReduced) : AgentAnswer(.dontAllow)
                }
            }
        } catch {
            return nil
        }
        _ = done.wait(timeout: .now() + timeout + 1)
        return answer.withLock { $0 }
    }
}
