import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A question the system asks the user on the app's behalf.
package enum AuthorizationQuestion: Sendable, Hashable {
    /// The first prompt: Allow Once / Allow While Using App / Don't Allow, with the Precise toggle.
    case whenInUse(app: String, usageDescription: String, preciseByDefault: Bool)
    /// The one-time upgrade: Change to Always Allow / Keep Only While Using.
    case upgradeToAlways(app: String, usageDescription: String)
    /// Temporary precise location: Allow Once / Don't Allow.
    case temporaryFullAccuracy(app: String, purpose: String)
}

/// The user's answer.
package enum AuthorizationAnswer: Sendable, Hashable {
    case allowOnce(precise: Bool)
    case allowWhileUsing(precise: Bool)
    case dontAllow
    case changeToAlways
    case keepWhileUsing
}

/// Asks the user. Returns nil when nobody can be asked (no terminal).
package protocol AuthorizationPrompter: Sendable {
    func ask(_ question: AuthorizationQuestion) -> AuthorizationAnswer?
    /// True when `ask` answers at once (a script), so no background thread is needed.
    var answersImmediately: Bool { get }
}

extension AuthorizationPrompter {
    package var answersImmediately: Bool { false }
}

/// Asks on the controlling terminal (`/dev/tty`), the Linux stand-in for the system prompt.
/// It writes to the terminal device, never to the program's standard output, so piped output
/// (`locationctl track --format json | jq`) stays clean.
package struct TerminalPrompter: AuthorizationPrompter {
    /// Whether a terminal can be asked: standard input is a terminal and `/dev/tty` opens.
    package static func isAvailable(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if environment["CORELOCATION_PROMPT"] == "never" { return false }
        guard isatty(STDIN_FILENO) != 0 else { return false }
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return false }
        close(fd)
        return true
    }

    package func ask(_ question: AuthorizationQuestion) -> AuthorizationAnswer? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var precise: Bool
        switch question {
        case let .whenInUse(_, _, preciseByDefault): precise = preciseByDefault
        default: precise = true
        }
        for _ in 0..<5 {
            write(fd, Self.text(for: question, precise: precise))
            guard let line = readLine(fd) else { return nil }
            let choice = line.trimmingCharacters(in: .whitespaces).lowercased()
            switch (question, choice) {
            case (.whenInUse, "1"): return .allowOnce(precise: precise)
            case (.whenInUse, "2"): return .allowWhileUsing(precise: precise)
            case (.whenInUse, "3"): return .dontAllow
            case (.whenInUse, "p"): precise.toggle()
            case (.upgradeToAlways, "1"): return .changeToAlways
            case (.upgradeToAlways, "2"): return .keepWhileUsing
            case (.temporaryFullAccuracy, "1"): return .allowOnce(precise: true)
            case (.temporaryFullAccuracy, "2"): return .dontAllow
            default: write(fd, "Please type one of the numbers shown.\n")
            }
        }
        return nil
    }

    package static func text(for question: AuthorizationQuestion, precise: Bool) -> String {
        switch question {
        case let .whenInUse(app, description, _):
            return """

                Allow “\(app)” to use your location?
                \(description)
                  [1] Allow Once
                  [2] Allow While Using App
                  [3] Don't Allow
                  [p] Precise: \(precise ? "On" : "Off") (type p to switch)
                Choice: 
                """
        case let .upgradeToAlways(app, description):
            return """

                Allow “\(app)” to also use your location even when you are not using the app?
                \(description)
                  [1] Change to Always Allow
                  [2] Keep Only While Using
                Choice: 
                """
        case let .temporaryFullAccuracy(app, purpose):
            return """

                “\(app)” would like to use your precise location.
                \(purpose)
                  [1] Allow Once
                  [2] Don't Allow
                Choice: 
                """
        }
    }

    private func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                guard let base = buffer.baseAddress else { return }
                let n = systemWrite(fd, base + offset, buffer.count - offset)
                if n <= 0 { return }
                offset += n
            }
        }
    }

    private func readLine(_ fd: Int32) -> String? {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let n = read(fd, &byte, 1)
            if n <= 0 { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            if line.count < 256 { line.append(byte) }
        }
    }
}

/// A prompter that answers from a script; for tests and for programs that embed their own UI.
package final class ScriptedPrompter: AuthorizationPrompter {
    private let state: Mutex<(answers: [AuthorizationAnswer?], asked: [AuthorizationQuestion])>

    package init(_ answers: [AuthorizationAnswer?]) {
        state = Mutex((answers, []))
    }

    package var questions: [AuthorizationQuestion] { state.withLock { $0.asked } }

    package var answersImmediately: Bool { true }

    package func ask(_ question: AuthorizationQuestion) -> AuthorizationAnswer? {
        state.withLock { state in
            state.asked.append(question)
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
    }
}

private func systemWrite(_ fd: Int32, _ pointer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(fd, pointer, count)
    #elseif canImport(Musl)
    Musl.write(fd, pointer, count)
    #else
    Darwin.write(fd, pointer, count)
    #endif
}
