import ArgumentParser
import CoreLocation
import CoreLocationRuntime
import CoreLocationDaemonProtocol
import Dispatch
import Foundation

extension AgentAnswer.Choice: ExpressibleByArgument {}

extension LocationCtl {
    struct Agent: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "agent",
            abstract: "Answer the location prompts of your apps that have no terminal (locationd's per-user agent).",
            discussion: """
                Apps that use locationd ask for authorization through it. While an agent of yours runs, \
                their prompts (Allow Once / Allow While Using App / Don't Allow, the upgrade to Always, \
                temporary precise location) appear in the agent's terminal instead of falling to the \
                default policy. Run it in a terminal you keep open; the packaged user unit \
                corelocation-agent.service runs `locationctl agent --answer …` for a fixed answer. \
                It waits for locationd and comes back when locationd restarts.

                Examples:
                  locationctl agent
                  locationctl agent --answer allow-once
                """
        )

        @Option(
            help: """
                Answer every prompt with this instead of asking: allow-once, allow-while-using, dont-allow, \
                change-to-always or keep-while-using.
                """)
        var answer: AgentAnswer.Choice?

        @Flag(help: "With --answer: Precise off (approximate location).")
        var approximate = false

        @Flag(help: "Exit when locationd goes away instead of waiting for it.")
        var once = false

        func validate() throws {
            if approximate, answer == nil { throw ValidationError("--approximate goes with --answer") }
        }

        func run() throws {
            guard answer != nil || AgentTerminal.isAvailable else {
                throw ValidationError("locationctl agent asks on its terminal: run it in one, or give --answer")
            }
            var waiting = false
            while true {
                guard let connection = LocationdClient.connect(startReading: false) else {
                    if once { throw ValidationError("locationd is not running") }
                    if !waiting { printError("Waiting for locationd…") }
                    waiting = true
                    Thread.sleep(forTimeInterval: 1)
                    continue
                }
                waiting = false
                // Refused (another agent of this user runs, decision 0085): asking again would only be refused again.
                guard serve(connection) else { throw ExitCode.failure }
                if once { return }
                printError("locationd went away; waiting for it to come back…")
            }
        }

        /// One line on standard output at once (a log of what was answered; tests read it live).
        private static func say(_ line: String) {
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }

        /// Answers prompts until the connection closes; false when locationd refused the agent.
        private func serve(_ connection: DaemonConnection) -> Bool {
            let closed = DispatchSemaphore(value: 0)
            let asking = DispatchQueue(label: "locationctl.agent")
            let fixed = answer.map { AgentAnswer($0, precise: !approximate) }
            connection.startReading { message in
                guard let message else {
                    closed.signal()
                    return
                }
                guard case let .event(_, .prompt(id, question)) = message else { return }
                asking.async {
                    let reply = fixed ?? AgentTerminal.ask(question)
                    connection.send(.answerPrompt(id: id, answer: reply))
                    let said = reply?.choice.rawValue ?? "dismissed"
                    Self.say("\(question.appID): \(question.kind.rawValue) → \(said)")
                }
            }
            do {
                _ = try LocationdClient.request(connection, .registerAgent)
            } catch {
                printError("locationd refused the agent: \(error)")
                connection.close()
                return false
            }
            Self.say("Answering location prompts for uid \(connection.hello.uid) (locationd)")
            closed.wait()
            connection.close()
            return true
        }
    }
}
