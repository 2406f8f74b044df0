import CoreLocationDBus
import CoreLocationEngine
import CoreLocationSources
import Foundation
import Logging

/// GeoClue 2 as a location source, for desktops where it is set up (docs/decisions/0038): while powered, a GeoClue
/// client (`Manager.CreateClient`, else `GetClient` on GeoClue < 2.5) with our `DesktopId` and
/// `RequestedAccuracyLevel`, started; every `LocationUpdated` becomes a fix read from the new `Location` object.
///
/// Unavailable, with the reason, when GeoClue is not on the bus (not installed, not activatable), refuses the
/// client (its agent or `/etc/geoclue/geoclue.conf` denies the desktop id), or stops; when it comes back (a new
/// owner of `org.freedesktop.GeoClue2`) the client is made again. Stopping the source stops and deletes the client.
public final class GeoClueLocationSource: LocationSource {
    public struct Configuration: Sendable, Hashable {
        /// The desktop id GeoClue's configuration and agent know the app by (GeoClue needs one to start a client).
        public var desktopId: String
        public var accuracyLevel: GeoClue.AccuracyLevel
        /// `DistanceThreshold`, metres (0: every update).
        public var distanceThreshold: UInt32
        /// `TimeThreshold`, seconds (0: every update).
        public var timeThreshold: UInt32

        public init(
            desktopId: String = "swift-corelocation", accuracyLevel: GeoClue.AccuracyLevel = .exact,
            distanceThreshold: UInt32 = 0, timeThreshold: UInt32 = 0
        ) {
            self.desktopId = desktopId
            self.accuracyLevel = accuracyLevel
            self.distanceThreshold = distanceThreshold
            self.timeThreshold = timeThreshold
        }
    }

    public let descriptor: SourceDescriptor
    private let configuration: Configuration
    private let bus: DBusClient.Bus
    private let scheduler: any Scheduler
    private let logger: Logger
    private let timeout: Duration

    private struct State {
        var connection: DBusClient?
        var ownerWatch: DBusSubscription?
        var ownerKnown = false
        /// The GeoClue (unique name) our client lives in; nil: none yet.
        var sessionOwner: String?
        var starting = false
        /// The latest owner the name watch reported, while a session was starting: a GeoClue that came back
        /// before the session in progress (made with the one that left) had finished.
        var ownerWhileStarting: String?
        var clientPath: String?
        var updates: DBusSubscription?
    }

    private let state = SourceRun(State())

    /// kind "geoclue"; expected accuracy by the level asked for; power like the Wi-Fi source's (GeoClue's Wi-Fi).
    public init(
        id: SourceID = SourceID("geoclue:"), configuration: Configuration = Configuration(), bus: DBusClient.Bus = .system,
        scheduler: any Scheduler, timeout: Duration = .seconds(10), logger: Logger = Logger(label: "corelocation.geoclue")
    ) {
        descriptor = SourceDescriptor(
            id: id, kind: "geoclue", expectedAccuracy: configuration.accuracyLevel.expectedAccuracy, powerCost: 5,
            isSimulated: false)
        self.configuration = configuration
        self.bus = bus
        self.scheduler = scheduler
        self.timeout = timeout
        self.logger = logger
    }

    /// The client's object path while one is running (for tests and `locationctl sources`).
    public var clientPath: String? { state.withLock { $0.clientPath } }

    public func start(_ handler: @escaping @Sendable (SourceEvent) -> Void) {
        let generation = state.start(handler)
        Task { await run(generation) }
    }

    public func stop() {
        let (connection, watch, updates, path) = state.stop { state in
            defer {
                state.connection = nil
                state.ownerWatch = nil
                state.updates = nil
                state.clientPath = nil
                state.sessionOwner = nil
                state.ownerKnown = false
                state.starting = false
            }
            return (state.connection, state.ownerWatch, state.updates, state.clientPath)
        }
        watch?.cancel()
        updates?.cancel()
        guard let connection else { return }
        Task { [timeout] in
            if let path {
                _ = try? await connection.call(
                    destination: GeoClue.service, path: path, interface: GeoClue.clientInterface, member: "Stop",
                    timeout: timeout)
                _ = try? await connection.call(
                    destination: GeoClue.service, path: GeoClue.managerPath, interface: GeoClue.managerInterface,
                    member: "DeleteClient", arguments: [.objectPath(path)], timeout: timeout)
            }
            connection.close()
        }
    }

    private func emit(_ event: SourceEvent, _ generation: Int) { state.emit(event, generation) }

    private func run(_ generation: Int) async {
        let connection: DBusClient
        do {
            connection = try DBusClient(bus: bus, logger: logger)
        } catch {
            let missing = (error as? DBusCallError)?.missingPart(service: "GeoClue", package: "geoclue-2.0")
            emit(.unavailable(reason: "GeoClue: \(missing ?? "cannot reach the system bus: \(error)")"), generation)
            return
        }
        let kept = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.connection = connection
            return true
        }
        guard kept else {
            connection.close()
            return
        }
        do {
            let watch = try await connection.watchNameOwner(GeoClue.service) { [weak self] owner in
                self?.ownerChanged(owner, generation)
            }
            let stale = state.withLock { state -> DBusSubscription? in
                guard state.generation == generation else { return watch }
                state.ownerWatch = watch
                return nil
            }
            stale?.cancel()
        } catch {
            emit(.unavailable(reason: "GeoClue: cannot watch \(GeoClue.service): \(error)"), generation)
        }
        // GeoClue is usually started by D-Bus activation: the first call starts it; no owner yet is not an error.
        await startSession(generation)
    }

    /// On the D-Bus loop thread: GeoClue stopped (nil) or a new GeoClue took the name.
    private func ownerChanged(_ owner: String?, _ generation: Int) {
        enum Step { case nothing, stopped, restart }
        let step = state.withLock { state -> Step in
            guard state.generation == generation else { return .nothing }
            guard state.ownerKnown else {
                state.ownerKnown = true
                return .nothing
            }
            guard let owner else {
                state.ownerWhileStarting = nil
                state.sessionOwner = nil
                state.clientPath = nil
                state.updates?.cancel()
                state.updates = nil
                return .stopped
            }
            if state.starting {
                state.ownerWhileStarting = owner
                return .nothing
            }
            if state.sessionOwner == owner { return .nothing }
            return .restart
        }
        switch step {
        case .nothing: break
        case .stopped: emit(.unavailable(reason: "GeoClue stopped (\(GeoClue.service) left the bus)"), generation)
        case .restart: Task { await startSession(generation) }
        }
    }

    private func startSession(_ generation: Int) async {
        guard let connection = state.withLock({ state -> DBusClient? in
            guard state.generation == generation, !state.starting else { return nil }
            state.starting = true
            return state.connection
        }) else { return }
        defer {
            // A new GeoClue that appeared meanwhile and is not the one this session reached (its calls went to
            // the GeoClue that left, and failed): make the client again in it. Found in a loaded test run,
            // where the restart was dropped because this session was still starting.
            let again = state.withLock { state -> Bool in
                guard state.generation == generation else { return false }
                state.starting = false
                defer { state.ownerWhileStarting = nil }
                guard let owner = state.ownerWhileStarting else { return false }
                return owner != state.sessionOwner
            }
            if again { Task { await startSession(generation) } }
        }
        do {
            let path = try await createClient(connection)
            let client = GeoClue.clientInterface
            try await connection.setProperty(
                "DesktopId", of: client, at: path, on: GeoClue.service, to: .string(configuration.desktopId),
                timeout: timeout)
            try await connection.setProperty(
                "RequestedAccuracyLevel", of: client, at: path, on: GeoClue.service,
                to: .uint32(configuration.accuracyLevel.rawValue), timeout: timeout)
            try await connection.setProperty(
                "DistanceThreshold", of: client, at: path, on: GeoClue.service,
                to: .uint32(configuration.distanceThreshold), timeout: timeout)
            try await connection.setProperty(
                "TimeThreshold", of: client, at: path, on: GeoClue.service, to: .uint32(configuration.timeThreshold),
                timeout: timeout)
            let updates = try await connection.subscribe(
                DBusMatchRule(sender: GeoClue.service, interface: client, member: "LocationUpdated", path: path)
            ) { [weak self] signal in
                guard signal.arguments.count == 2, let location = signal.arguments[1].string else { return }
                Task { await self?.deliver(location, generation) }
            }
            let owner = try? await connection.nameOwner(GeoClue.service)
            let previous = state.withLock { state -> DBusSubscription? in
                guard state.generation == generation else { return updates }
                defer {
                    state.updates = updates
                    state.clientPath = path
                    state.sessionOwner = owner
                }
                return state.updates
            }
            previous?.cancel()
            _ = try await connection.call(
                destination: GeoClue.service, path: path, interface: client, member: "Start", timeout: timeout)
            logger.debug("GeoClue client started", metadata: ["client": "\(path)"])
            // A client started after GeoClue already knew where it is has its Location set at once.
            if let current = try? await connection.property(
                "Location", of: client, at: path, on: GeoClue.service, timeout: timeout
            ).string, current != "/" {
                await deliver(current, generation)
            }
        } catch let error as DBusCallError where error.isServiceMissing {
            emit(
                .unavailable(
                    reason: "GeoClue is not running (\(GeoClue.service) is not on the bus; "
                        + "Debian package geoclue-2.0)"),
                generation)
        } catch let error as DBusCallError where error.name == "org.freedesktop.DBus.Error.AccessDenied" {
            emit(
                .unavailable(
                    reason: "GeoClue refused the client '\(configuration.desktopId)' (its agent or geoclue.conf): "
                        + error.message), generation)
        } catch {
            emit(.unavailable(reason: "GeoClue: \(error)"), generation)
        }
    }

    /// `CreateClient` (GeoClue ≥ 2.5: a client of our own), else `GetClient` (one per connection).
    private func createClient(_ connection: DBusClient) async throws -> String {
        do {
            return try await managerCall(connection, "CreateClient")
        } catch let error as DBusCallError where error.name == "org.freedesktop.DBus.Error.UnknownMethod" {
            return try await managerCall(connection, "GetClient")
        }
    }

    private func managerCall(_ connection: DBusClient, _ member: String) async throws -> String {
        let reply = try await connection.call(
            destination: GeoClue.service, path: GeoClue.managerPath, interface: GeoClue.managerInterface,
            member: member, timeout: timeout)
        guard let path = reply.first?.string else {
            throw DBusCallError(.remote, "GeoClue's \(member) did not answer an object path")
        }
        return path
    }

    private func deliver(_ location: String, _ generation: Int) async {
        guard let connection = state.withLock({ $0.generation == generation ? $0.connection : nil }) else { return }
        do {
            let properties = try await connection.properties(
                of: GeoClue.locationInterface, at: location, on: GeoClue.service, timeout: timeout)
            guard let fix = GeoClue.fix(properties, now: scheduler.wallNow) else {
                logger.info("GeoClue location without coordinates", metadata: ["location": "\(location)"])
                return
            }
            emit(.fix(fix), generation)
        } catch {
            logger.info("GeoClue location unreadable", metadata: ["location": "\(location)", "error": "\(error)"])
        }
    }
}
