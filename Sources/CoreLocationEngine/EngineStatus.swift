import Foundation

/// A snapshot of the engine for people (`locationctl status`) and tests.
public struct EngineStatus: Hashable, Codable, Sendable {
    public struct Source: Hashable, Codable, Sendable {
        public var descriptor: SourceDescriptor
        public var isPowered: Bool
        /// Seconds the source has been powered in all, up to the snapshot.
        public var onTime: Double
        public var fixCount: Int
        /// Seconds since the last fix, nil if none.
        public var lastFixAge: Double?
        public var lastFix: Fix?
        public var isAvailable: Bool
        public var isFinished: Bool
        public var lastProblem: String?
        /// The device of the last fix, for a source that gathers from several (a modem source: the modem's model
        /// and D-Bus path); nil for every other source and before the first fix. The engine does not know it: the
        /// runtime that owns the sources fills it in (`FixOriginReporting`, docs/decisions/0035).
        public var origin: String? = nil
    }

    public struct Client: Hashable, Codable, Sendable {
        public var id: ClientID
        public var label: String
        public var authorization: ClientAuthorization
        public var updates: UpdateRequest?
        public var isRequestingLocation: Bool
        /// Updates paused automatically (the user stopped).
        public var isPaused: Bool = false
    }

    public var sources: [Source]
    public var clients: [Client]
    public var isStationary: Bool
}

extension LocationEngine {
    public func status(at now: Double) -> EngineStatus {
        EngineStatus(
            sources: sourceOrder.compactMap { id in
                guard let s = sources[id] else { return nil }
                return EngineStatus.Source(
                    descriptor: s.descriptor,
                    isPowered: s.powered,
                    onTime: s.onTime + (s.poweredSince.map { now - $0 } ?? 0),
                    fixCount: s.fixCount,
                    lastFixAge: s.lastFixAt.map { now - $0 },
                    lastFix: s.lastFix,
                    isAvailable: s.isAvailable,
                    isFinished: s.isFinished,
                    lastProblem: s.lastProblem
                )
            },
            clients: clientOrder.compactMap { id in
                guard let c = clients[id] else { return nil }
                return EngineStatus.Client(
                    id: id, label: c.label, authorization: c.authorization, updates: c.updates,
                    isRequestingLocation: c.pending != nil, isPaused: c.pause != nil
                )
            },
            isStationary: stationary.isStationary
        )
    }
}
