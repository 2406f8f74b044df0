import CoreLocationDaemonProtocol
import CoreLocationEngine
import CoreLocationStorage
import Logging

/// Whoever answers an app's authorization prompts inside locationd: the user's agent
/// (`locationctl agent`), when one is registered (decision 0018).
package protocol AuthorizationAgent: Sendable {
    /// True while an agent can be asked; otherwise the question is not asked and the default
    /// policy applies at once, as for an app without a terminal.
    var isAvailable: Bool { get }
    /// Asks and waits (on a background thread) for the answer; nil: dismissed or no answer in time.
    func ask(_ question: AgentQuestion) -> AgentAnswer?
}

/// The authorization service's prompter over an agent.
package struct AgentPrompter: AuthorizationPrompter {
    package let agent: any AuthorizationAgent
    package let appID: String

    package var answersImmediately: Bool { !agent.isAvailable }

    package func ask(_ question: AuthorizationQuestion) -> AuthorizationAnswer? {
        guard agent.isAvailable else { return nil }
        return agent.ask(question.agentQuestion(appID: appID)).map(AuthorizationAnswer.init)
    }
}

extension AuthorizationQuestion {
    package func agentQuestion(appID: String) -> AgentQuestion {
        switch self {
        case let .whenInUse(app, description, precise):
            AgentQuestion(kind: .whenInUse, app: app, appID: appID, text: description, preciseByDefault: precise)
        case let .upgradeToAlways(app, description):
            AgentQuestion(kind: .upgradeToAlways, app: app, appID: appID, text: description, preciseByDefault: true)
        case let .temporaryFullAccuracy(app, purpose):
            AgentQuestion(kind: .temporaryFullAccuracy, app: app, appID: appID, text: purpose, preciseByDefault: true)
        }
    }

    package init(_ question: AgentQuestion) {
        switch question.kind {
        case .whenInUse:
            self = .whenInUse(
                app: question.app, usageDescription: question.text, preciseByDefault: question.preciseByDefault)
        case .upgradeToAlways: self = .upgradeToAlways(app: question.app, usageDescription: question.text)
        case .temporaryFullAccuracy: self = .temporaryFullAccuracy(app: question.app, purpose: question.text)
        }
    }
}

extension AuthorizationAnswer {
    package init(_ answer: AgentAnswer) {
        switch answer.choice {
        case .allowOnce: self = .allowOnce(precise: answer.precise)
        case .allowWhileUsing: self = .allowWhileUsing(precise: answer.precise)
        case .dontAllow: self = .dontAllow
        case .changeToAlways: self = .changeToAlways
        case .keepWhileUsing: self = .keepWhileUsing
        }
    }

    package var agentAnswer: AgentAnswer {
        switch self {
        case let .allowOnce(precise): AgentAnswer(.allowOnce, precise: precise)
        case let .allowWhileUsing(precise): AgentAnswer(.allowWhileUsing, precise: precise)
        case .dontAllow: AgentAnswer(.dontAllow)
        case .changeToAlways: AgentAnswer(.changeToAlways)
        case .keepWhileUsing: AgentAnswer(.keepWhileUsing)
        }
    }
}

extension AuthorizationService {
    /// The service locationd keeps for one app whose prompts go to its user's agent; without an
    /// agent it is `headless`.
    package static func brokered(
        identity: AppIdentity, store: AuthorizationStore?, environmentPolicy: DefaultPolicy?,
        sourcesAreSimulated: Bool, agent: any AuthorizationAgent, logger: Logger
    ) -> AuthorizationService {
        AuthorizationService(
            identity: identity, store: store, prompter: AgentPrompter(agent: agent, appID: identity.id),
            environmentPolicy: environmentPolicy, sourcesAreSimulated: sourcesAreSimulated, logger: logger
        )
    }
}

/// The agent's side: the question shown on the agent's terminal, as the app's own prompt shows it.
package enum AgentTerminal {
    /// Whether the agent can ask on a terminal.
    package static var isAvailable: Bool { TerminalPrompter.isAvailable(environment: [:]) }

    package static func ask(_ question: AgentQuestion) -> AgentAnswer? {
        TerminalPrompter().ask(AuthorizationQuestion(question))?.agentAnswer
    }
}
