import CoreLocationRuntime
import CoreLocationDaemonProtocol
import Foundation
import Synchronization

/// The users' prompt agents (`locationctl agent`): one connection per uid answers the
/// authorization prompts of that user's apps. Another user's agent is never asked (decision 0011).
final class AgentRegistry: Sendable {
    private final class Pending: Sendable {
        let agent: UInt64
        let answered = DispatchSemaphore(value: 0)
        let answer = Mutex<AgentAnswer?>(nil)
        init(agent: UInt64) { self.agent = agent }
    }

    private struct State {
        var agents: [UInt32: Peer] = [:]
        /// Agents of another protocol by uid (a GeoClue agent that called `AddAgent`): asked when the user has
        /// no `locationctl agent`.
        var remote: [UInt32: (owner: String, ask: RemoteAgent)] = [:]
        var pending: [UInt64: Pending] = [:]
        var nextPrompt: UInt64 = 0
    }

    private let state = Mutex(State())
    /// Seconds the agent has to answer before the default policy applies.
    let timeout: Double

    init(timeout: Double) {
        self.timeout = timeout
    }

    /// Makes `peer` its user's agent; false while another agent of that user is connected: a running agent is
    /// never replaced behind the user's back (issue 37), the second must wait until the first is gone.
    func register(_ peer: Peer) -> Bool {
        state.withLock { state -> Bool in
            if let current = state.agents[peer.identity.uid], current !== peer, !current.isClosed { return false }
            state.agents[peer.identity.uid] = peer
            return true
        }
    }

    /// Asks one question and waits for the answer (on the prompt thread); nil: dismissed or no answer.
    typealias RemoteAgent = @Sendable (AgentQuestion) -> AgentAnswer?

    /// Makes `owner` (a name of the other protocol) `uid`'s agent of that protocol; false while another one is.
    func registerRemote(uid: UInt32, owner: String, ask: @escaping RemoteAgent) -> Bool {
        state.withLock { state -> Bool in
            if let current = state.remote[uid], current.owner != owner { return false }
            state.remote[uid] = (owner, ask)
            return true
        }
    }

    /// The other protocol's agent `owner` is gone.
    func removeRemote(owner: String) {
        state.withLock { state in state.remote = state.remote.filter { $0.value.owner != owner } }
    }

    func remoteAgent(for uid: UInt32) -> RemoteAgent? { state.withLock { $0.remote[uid]?.ask } }

    func agent(for uid: UInt32) -> Peer? {
        state.withLock { $0.agents[uid] }.flatMap { $0.isClosed ? nil : $0 }
    }

    /// The agent's answer; only the agent that was asked may answer.
    func answer(_ id: UInt64, _ answer: AgentAnswer?, from peer: Peer) -> Bool {
        guard let pending = state.withLock({ $0.pending[id] }), pending.agent == peer.id else { return false }
        pending.answer.withLock { $0 = answer }
        pending.answered.signal()
        return true
    }

    /// The connection closed: if it was an agent, its open prompts are dismissed.
    func detach(_ peer: Peer) {
        state.withLock { state in
            if state.agents[peer.identity.uid] === peer { state.agents[peer.identity.uid] = nil }
        }
        dismissPrompts(of: peer)
    }

    private func dismissPrompts(of peer: Peer) {
        let open = state.withLock { $0.pending.values.filter { $0.agent == peer.id } }
        for pending in open { pending.answered.signal() }
    }

    /// Asks `uid`'s agent, else its agent of another protocol, else the app's own terminal (`fallback`), and waits (the caller is the
    /// authorization service's prompt thread).
    func ask(_ question: AgentQuestion, uid: UInt32, fallback: Peer?) -> AgentAnswer? {
        if agent(for: uid) == nil, let remote = remoteAgent(for: uid) { return remote(question) }
        guard let agent = agent(for: uid) ?? fallback else { return nil }
        let pending = Pending(agent: agent.id)
        let id = state.withLock { state in
            state.nextPrompt += 1
            state.pending[state.nextPrompt] = pending
            return state.nextPrompt
        }
        defer { _ = state.withLock { $0.pending.removeValue(forKey: id) } }
        agent.sendEvent(.prompt(id: id, question: question))
        guard pending.answered.wait(timeout: .now() + timeout) == .success else { return nil }
        return pending.answer.withLock { $0 }
    }

    /// One app's view: its user's agent, else a connection of the app that offered its terminal.
    struct ForApp: AuthorizationAgent {
        let registry: AgentRegistry
        let core: DaemonCore
        let key: DaemonCore.AppKey

        var isAvailable: Bool {
            registry.agent(for: key.uid) != nil || registry.remoteAgent(for: key.uid) != nil || terminal != nil
        }

        func ask(_ question: AgentQuestion) -> AgentAnswer? {
            registry.ask(question, uid: key.uid, fallback: terminal)
        }

        private var terminal: Peer? {
            guard let app = core.state.withLock({ $0.apps[key] }) else { return nil }
            return app.peers.withLock { peers in
                peers.values.sorted { $0.id < $1.id }.first { $0.state.withLock(\.offersPrompts) && !$0.isClosed }
            }
        }
    }

    /// No agent: the headless policy answers at once.
    struct Nobody: AuthorizationAgent {
        var isAvailable: Bool { false }
        func ask(_ question: AgentQuestion) -> AgentAnswer? { nil }
    }
}
