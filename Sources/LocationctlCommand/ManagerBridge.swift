import CoreLocation
import CoreLocationSources
import Foundation
import Synchronization

/// Turns a `CLLocationManager`'s delegate calls into an async sequence for the commands, which
/// run on the main actor: delegate calls arrive through the main queue, which the main actor drains.
final class ManagerBridge: NSObject, CLLocationManagerDelegate, Sendable {
    enum Event {
        case authorization(CLAuthorizationStatus)
        case locations([CLLocation])
        case failure(CLError)
        /// Automatic pausing began (true) or ended (false).
        case paused(Bool)
        case sourceFinished
        /// A live source says why it has nothing (each new reason once).
        case sourceProblem(String)
        /// Time passed (`tick()`, for a command whose policy acts on silence).
        case tick
    }

    /// The delegate's calls, in order (see `Events`).
    var events: Events { Events(bridge: self) }

    /// Events delivered and not yet handed to the consumer, and whether a consumer sleeps on
    /// `wakeUps` for more.
    let queue = Mutex<[Event]>([])
    /// Events queued or held by the iterator and not yet handed out.
    let backlog = Atomic<Int>(0)
    /// A token whenever events were queued: wakes the iterator (the newest token only; one is enough).
    let wakeUps: AsyncStream<Void>
    private let wakeUp: AsyncStream<Void>.Continuation
    /// Counts `.locations` events from their delegate call until the consumer takes them.
    let flow = Mutex<DeliveryFlow?>(nil)
    /// The flow of a source that finished, until its deliveries are all taken.
    private let finishing = Mutex<DeliveryFlow?>(nil)
    /// Set when the replayed source finished: the recording has ended, so a later `locationUnknown` is not news.
    private let sourceHasFinished = Atomic(false)

    override init() {
        (wakeUps, wakeUp) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        super.init()
    }

    /// Makes `flow` (the runtime's backpressure) count each delivery of locations until the command
    /// has taken it from `events`, not only until the delegate call ran: the call only queues it
    /// here, and a replay must wait for the loop that prints (`track`), or the queue grows with the
    /// recording. Only for a consumer that keeps taking events until the source finishes.
    func countDeliveries(in flow: DeliveryFlow) {
        self.flow.withLock { $0 = flow }
    }

    /// Ends the stream after the events already on the main queue (a replay that finished).
    ///
    /// With `countDeliveries(in:)`, the count reaches 0 only when the consumer has taken every
    /// location, so `.sourceFinished` is queued then, by whichever comes last: this call or the
    /// consumer taking the last counted event (`finishIfDone`). Waiting by re-posting a block to the
    /// main queue (`afterDeliveries`) would starve the consumer it waits for: blocks that keep
    /// re-posting themselves to the main queue keep the main actor's jobs from running.
    func sourceFinished(after flow: DeliveryFlow) {
        sourceHasFinished.store(true, ordering: .releasing)
        guard self.flow.withLock({ $0 }) === flow else {
            return Self.afterDeliveries(flow) { [self] in yield(.sourceFinished) }
        }
        finishing.withLock { $0 = flow }
        finishIfDone()
    }

    /// Queues `.sourceFinished` once a finished source's counted deliveries are all taken.
    func finishIfDone() {
        let done = finishing.withLock { pending -> Bool in
            guard let flow = pending, flow.inFlight == 0 else { return false }
            pending = nil
            return true
        }
        if done { yield(.sourceFinished) }
    }

    /// Ends the stream after the events already queued (a live command told to stop by a signal).
    func stop() { yield(.sourceFinished) }

    /// Queues a `.tick`.
    func tick() { yield(.tick) }

    private let lastProblem = Mutex<String?>(nil)

    private func yield(_ event: Event) {
        if case .locations = event, let flow = flow.withLock({ $0 }) { flow.sent() }
        backlog.add(1, ordering: .relaxed)
        queue.withLock { $0.append(event) }
        wakeUp.yield()
    }

    /// True when every event delivered so far has been handed to the consumer (the moment for
    /// `track` to write out the lines it buffered).
    var isCaughtUp: Bool { backlog.load(ordering: .relaxed) <= 0 }

    /// Runs `body` on the main queue once no counted delivery is queued: delegate calls go out in
    /// batches, so the end of a replay must wait for the batches still on their way.
    static func afterDeliveries(_ flow: DeliveryFlow, _ body: @escaping @Sendable () -> Void) {
        DispatchQueue.main.async {
            if flow.inFlight > 0 { return afterDeliveries(flow, body) }
            body()
        }
    }

    /// Reports why a source has nothing, once per distinct reason.
    func sourceProblem(_ reason: String) {
        let isNew = lastProblem.withLock { last -> Bool in
            defer { last = reason }
            return last != reason
        }
        if isNew { yield(.sourceProblem(reason)) }
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        yield(.authorization(manager.authorizationStatus))
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        yield(.locations(locations))
    }

    func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager) {
        yield(.paused(true))
    }

    func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager) {
        yield(.paused(false))
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        let error = error as? CLError ?? CLError(.locationUnknown)
        // At --speed max the timeline runs the engine's no-fix timer as soon as the recording's last epoch
        // is out, while `.sourceFinished` waits for the consumer to take every location: that failure
        // would be printed as "no fix for a while; still trying" after a replay that simply ended.
        if error.code == .locationUnknown, sourceHasFinished.load(ordering: .acquiring) { return }
        yield(.failure(error))
    }
}

/// Errors a person can act on.
struct NotAuthorized: Error, CustomStringConvertible {
    var status: CLAuthorizationStatus
    var description: String {
        let what = status == .restricted ? "restricted from using" : "not authorized to use"
        return """
            locationctl is \(what) location services.
            Allow it with:
              locationctl authorize locationctl when-in-use
            """
    }
}

struct NotDetermined: Error, CustomStringConvertible {
    var description: String {
        """
        locationctl has no location authorization and there is no terminal to ask.
        Allow it with:
          locationctl authorize locationctl when-in-use
        """
    }
}

struct NoLocation: Error, CustomStringConvertible {
    var hasSource: Bool
    var description: String {
        if hasSource { return "No location: the source produced no usable fix in time (kCLErrorLocationUnknown)." }
        return """
            No location: no source is configured, and no gpsd answers on 127.0.0.1:2947.
            Name a receiver with --source (gpsd://host:port, serial:/dev/ttyUSB0, nmea:/file.nmea,
            tcp://host:port, stdin) or in ~/.config/corelocation/sources.conf or
            /etc/corelocation/sources.conf (one URL per line),
            or simulate one with --simulate drive (or run, bike, a GPX file, LAT,LON), or set CORELOCATION_SIMULATE.
            """
    }
}

extension CLAuthorizationStatus {
    var isAuthorized: Bool { self == .authorizedWhenInUse || self == .authorizedAlways }
}
