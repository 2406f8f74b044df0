import Foundation
import Logging

/// Only the executable configures logging: warnings and errors to standard error by default,
/// more with `LOCATIONCTL_LOG_LEVEL=info|debug|trace` (debug shows coordinates).
enum LogSetup {
    static func bootstrap(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let level = environment["LOCATIONCTL_LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
