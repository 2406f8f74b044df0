import CoreLocation
import CoreLocationSources
import Foundation
import Synchronization

/// Turns a `CLLocationManager`'s delegate calls into an async stream for the commands, which
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
    }

    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    override init() {
        (events, continuation) = AsyncStream<Event>.makeStream()
        super.init()
    }

    /// Ends the stream after the events already on the main queue (a replay that finished).
    func sourceFinished(after flow: DeliveryFlow) {
        let continuation = self.continuation
        Self.afterDeliveries(flow) { continuation.yield(.sourceFinished) }
    }

    private let lastProblem = Mutex<String?>(nil)

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
        if isNew { continuation.yield(.sourceProblem(reason)) }
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        continuation.yield(.authorization(manager.authorizationStatus))
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        continuation.yield(.locations(locations))
    }

    func locationManagerDidPauseLocationUpdates(_ manager: CLLocationManager) {
        continuation.yield(.paused(true))
    }

    func locationManagerDidResumeLocationUpdates(_ manager: CLLocationManager) {
        continuation.yield(.paused(false))
    }

    func locationManager(_ manager: CLLocationManager, didFailWithError error: any Error) {
        continuation.yield(.failure(error as? CLError ?? CLError(.locationUnknown)))
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
