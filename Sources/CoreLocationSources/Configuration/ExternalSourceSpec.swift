import Foundation
import Logging
import Synchronization

/// A source URL whose kind lives in a module above this one (docs/decisions/0038): `ip:` and `wifi:`
/// (CoreLocationNetwork), `geoclue:` (GeoClue2 over D-Bus), `modem:` (CoreLocationCellular). This module only
/// knows the scheme names, so a configuration naming them parses everywhere; the program that links the module
/// registers a `SourceMaker` for them (`SourceMakers.register`), which checks the rest of the URL and makes the
/// source. Without a registered maker, making one fails with `.notAvailable`, saying which program has it.
public struct ExternalSourceSpec: Hashable, Sendable, CustomStringConvertible {
    /// The scheme, lowercased, without the colon: "ip", "wifi", "geoclue", "modem".
    public var scheme: String
    /// Everything after `scheme:` (a path, `?options`, a sub-kind), untouched.
    public var rest: String

    public init(scheme: String, rest: String) {
        self.scheme = scheme
        self.rest = rest
    }

    /// The schemes this module recognises as external kinds.
    public static let knownSchemes: Set<String> = ["ip", "wifi", "geoclue", "modem"]

    public var description: String { "\(scheme):\(rest)" }

    /// `rest` split into a path (a leading `//` dropped) and `key=value` options; an option without `=` is an error.
    public func pathAndOptions() throws -> (path: String, options: [(key: String, value: String)]) {
        let body = rest.hasPrefix("//") ? String(rest.dropFirst(2)) : rest
        let parts = body.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var options: [(key: String, value: String)] = []
        if parts.count > 1 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard keyValue.count == 2 else {
                    throw SourceConfigurationError(.invalidURL, "\(self): option '\(pair)' is not key=value")
                }
                options.append((keyValue[0], keyValue[1].removingPercentEncoding ?? keyValue[1]))
            }
        }
        return (String(parts.first ?? ""), options)
    }
}

/// What a `SourceMaker` gets besides the URL.
public struct SourceMakingContext: Sendable {
    public var environment: [String: String]
    public var scheduler: any Scheduler
    public var logger: Logger

    public init(environment: [String: String], scheduler: any Scheduler, logger: Logger) {
        self.environment = environment
        self.scheduler = scheduler
        self.logger = logger
    }
}

/// Makes the sources of one or more external schemes.
public struct SourceMaker: Sendable {
    public var schemes: Set<String>
    /// Checks the URL without touching anything (command-line validation, `sources.conf` parsing).
    public var validate: @Sendable (ExternalSourceSpec) throws -> Void
    /// The sources for the URL (a `modem:` URL can make two sharing one session).
    public var make: @Sendable (ExternalSourceSpec, SourceMakingContext) throws -> [any LocationSource]

    public init(
        schemes: Set<String>, validate: @escaping @Sendable (ExternalSourceSpec) throws -> Void,
        make: @escaping @Sendable (ExternalSourceSpec, SourceMakingContext) throws -> [any LocationSource]
    ) {
        self.schemes = schemes
        self.validate = validate
        self.make = make
    }
}

/// A registry of makers for external schemes. Executables register theirs in `shared` at start
/// (`NetworkSourceMakers.register()`, `ModemSourceMakers.register()`); registering a scheme again replaces it. Tests
/// that must not see the process's registrations use an instance of their own.
public final class SourceMakers: Sendable {
    /// The process's registry, used by `SourceSpec.parse`, `SourceFactory` and `SourceSelection` by default.
    public static let shared = SourceMakers()

    private let makers = Mutex<[String: SourceMaker]>([:])

    public init() {}

    public func register(_ maker: SourceMaker) {
        makers.withLock { makers in
            for scheme in maker.schemes { makers[scheme] = maker }
        }
    }

    /// Registers in `shared`.
    public static func register(_ maker: SourceMaker) { shared.register(maker) }

    public func maker(for scheme: String) -> SourceMaker? {
        makers.withLock { $0[scheme] }
    }

    /// The sources for `spec`, through its registered maker.
    public func make(_ spec: ExternalSourceSpec, context: SourceMakingContext) throws -> [any LocationSource] {
        guard let maker = maker(for: spec.scheme) else {
            throw SourceConfigurationError(
                .notAvailable,
                "\(spec): \(spec.scheme): sources are not part of this program; locationd and locationctl run them "
                    + "(an app gets them through locationd)")
        }
        return try maker.make(spec, context)
    }
}
