import CoreLocationDBus
import CoreLocationEngine
import CoreLocationRuntime
import Foundation

extension GeoClueService {
    /// The properties a client may write (GeoClue's `readwrite` ones).
    static let writable: Set<String> = ["DistanceThreshold", "TimeThreshold", "DesktopId", "RequestedAccuracyLevel"]

    /// GeoClue's unknown altitude (`GCLUE_LOCATION_ALTITUDE_UNKNOWN`, −G_MAXDOUBLE).
    static let unknownAltitude = -Double.greatestFiniteMagnitude

    /// `Start`: the app's decision first (asked when there is none: the user's agent, else the headless
    /// policy); refused → `AccessDenied`, never a position.
    func start(_ client: Client) async -> DBusMethodResult {
        guard let opened = await client.opening.value else {
            return .error(name: DBusMethodResult.failedName, message: "\(client.path) was deleted")
        }
        let authorization = await core.authorize(opened)
        guard authorization.allowsLocation else {
            let name = desktopID(of: client.path).isEmpty ? opened.app.key.appID : desktopID(of: client.path)
            return .error(
                name: Self.accessDenied,
                message: "'\(name)' is not allowed to see the location (locationctl authorize \(opened.app.key.appID) …)")
        }
        let running = state.withLock { state -> Bool in
            guard state.clients[client.path] != nil else { return false }
            state.clients[client.path]?.active = true
            return true
        }
        guard running else { return .error(name: DBusMethodResult.failedName, message: "\(client.path) was deleted") }
        request(opened, path: client.path)
        try? objects.update(client.path, interface: Self.clientInterface, ["Active": .bool(true)])
        updateInUse()
        return .empty
    }

    func stop(_ client: Client) async -> DBusMethodResult {
        if let opened = await client.opening.value { core.stopUpdates(opened) }
        state.withLock { $0.clients[client.path]?.active = false }
        try? objects.update(client.path, interface: Self.clientInterface, ["Active": .bool(false)])
        updateInUse()
        return .empty
    }

    /// The engine request the client's properties make now: the accuracy level as `desiredAccuracy` (CITY and
    /// coarser held at reduced accuracy), the distance threshold as the distance filter; the time threshold is
    /// applied here, at each fix.
    private func request(_ opened: ProtocolClient, path: String) {
        let level = GeoClueLevel(requested: property("RequestedAccuracyLevel", path)?.integer.map { UInt32(clamping: $0) } ?? 0)
        let distance = property("DistanceThreshold", path)?.integer ?? 0
        core.capAccuracy(opened, reduced: level.isReduced)
        core.startUpdates(
            opened, UpdateRequest(desiredAccuracy: level.desiredAccuracy, distanceFilter: distance > 0 ? Double(distance) : -1))
    }

    private func property(_ name: String, _ path: String) -> DBusValue? {
        objects.value(name, of: Self.clientInterface, at: path)
    }

    func desktopID(of path: String) -> String { property("DesktopId", path)?.string ?? "" }

    /// `Properties.Set` on a client: only its caller, only the writable properties. A running client takes a new
    /// threshold or level at once.
    func setProperty(_ write: DBusPropertyWrite) -> DBusMethodResult {
        guard write.interface == Self.clientInterface, let client = state.withLock({ $0.clients[write.call.path] }) else {
            return .error(name: DBusMethodResult.propertyReadOnlyName, message: "\(write.interface).\(write.name) is read-only")
        }
        guard client.owner == write.call.sender else {
            return .error(name: Self.accessDenied, message: "\(client.path) belongs to another caller")
        }
        guard Self.writable.contains(write.name) else {
            return .error(name: DBusMethodResult.propertyReadOnlyName, message: "\(write.interface).\(write.name) is read-only")
        }
        // Stored here, before the request is made from it (the store would store it only after this returns).
        do {
            try objects.update(client.path, interface: Self.clientInterface, [write.name: write.value.unwrapped])
        } catch {
            return .error(name: DBusMethodResult.invalidArgsName, message: "\(error)")
        }
        if client.active, write.name != "DesktopId" {
            Task { if let opened = await client.opening.value { request(opened, path: client.path) } }
        }
        return .empty
    }

    /// What the engine tells one GeoClue client.
    func engineEvent(_ event: ClientEvent, path: String) {
        switch event {
        case let .delivery(delivery):
            guard let fix = delivery.fixes.last else { return }
            publish(fix, path: path)
        case let .authorization(authorization) where !authorization.allowsLocation:
            // Denied while running (`locationctl authorize … deny`, services off): the client stops at once, as
            // GeoClue stops a client its agent no longer allows.
            let wasActive = state.withLock { state -> Bool in
                defer { state.clients[path]?.active = false }
                return state.clients[path]?.active ?? false
            }
            guard wasActive else { return }
            try? objects.update(path, interface: Self.clientInterface, ["Active": .bool(false)])
            updateInUse()
        default:
            break
        }
    }

    /// A new Location object and `LocationUpdated(old, new)` to the client's caller, unless the time threshold
    /// holds it back. The previous location stays (the signal names it); the one before goes.
    private func publish(_ fix: Fix, path: String) {
        let now = core.scheduler.now
        let threshold = Double(property("TimeThreshold", path)?.integer ?? 0)
        let step = state.withLock { state -> (owner: String, old: String, new: String, drop: String?)? in
            guard var client = state.clients[path], client.active else { return nil }
            if threshold > 0, let last = client.lastUpdate, now - last < threshold { return nil }
            let old = client.location
            let new = "\(path)/Location/\(client.nextLocation)"
            client.nextLocation += 1
            let drop = client.previousLocation
            client.previousLocation = old == "/" ? nil : old
            client.location = new
            client.lastUpdate = now
            state.clients[path] = client
            return (client.owner, old, new, drop)
        }
        guard let step else { return }
        let seconds = fix.timestamp.timeIntervalSince1970.rounded(.down)
        let micros = ((fix.timestamp.timeIntervalSince1970 - seconds) * 1_000_000).rounded()
        do {
            try objects.add(
                step.new,
                interfaces: [
                    Self.locationInterface: [
                        "Latitude": .double(fix.latitude), "Longitude": .double(fix.longitude),
                        "Accuracy": .double(fix.horizontalAccuracy),
                        "Altitude": .double(fix.verticalAccuracy >= 0 ? fix.altitude : Self.unknownAltitude),
                        "Speed": .double(fix.speed >= 0 ? fix.speed : -1), "Heading": .double(fix.course >= 0 ? fix.course : -1),
                        "Description": .string(""),
                        "Timestamp": .structure([.uint64(UInt64(max(seconds, 0))), .uint64(UInt64(max(micros, 0)))]),
                    ]
                ], audience: step.owner)
            try objects.update(path, interface: Self.clientInterface, ["Location": .objectPath(step.new)])
            try bus.emitSignal(
                path: path, interface: Self.clientInterface, member: "LocationUpdated",
                arguments: [.objectPath(step.old), .objectPath(step.new)], destination: step.owner)
        } catch {
            logger.warning("Cannot publish a GeoClue location", metadata: ["client": "\(path)", "error": "\(error)"])
        }
        if let drop = step.drop { try? objects.remove(drop) }
    }
}
