import CoreLocation
import CoreLocationSources
import Foundation
import CoreLocationEngine
import Synchronization

/// The delegate and engine listener of `locationctl monitor`, as one async stream.
final class MonitorBridge: NSObject, CLLocationManagerDelegate, Sendable {
    enum Event {
        case authorization(CLAuthorizationStatus)
        case notice(RegionNotice)
        case visit(Visit)
        case significant(CLLocation)
        case failed(String, CLError)
        case sourceFinished
    }

    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    override init() {
        (events, continuation) = AsyncStream<Event>.makeStream()
        super.init()
    }

    func sourceFinished(after flow: DeliveryFlow) {
        let continuation = self.continuation
        // After the delegate calls already queued on the main queue.
        ManagerBridge.afterDeliveries(flow) { continuation.yield(.sourceFinished) }
    }

    func notice(_ notice: RegionNotice) {
        let continuation = self.continuation
        DispatchQueue.main.async { continuation.yield(.notice(notice)) }
    }

    func visit(_ visit: Visit) {
        let continuation = self.continuation
        DispatchQueue.main.async { continuation.yield(.visit(visit)) }
    }

    func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
        continuation.yield(.authorization(manager.authorizationStatus))
    }

    func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
        for location in locations { continuation.yield(.significant(location)) }
    }

    func locationManager(
        _ manager: CLLocationManager, monitoringDidFailFor region: CLRegion?, withError error: any Error
    ) {
        continuation.yield(.failed(region?.identifier ?? "?", error as? CLError ?? CLError(.regionMonitoringFailure)))
    }
}

/// Prints one line per event: text, or a JSON object with `event`, `identifier`, `time`,
/// `latitude`, `longitude` (and `state` for determinations; `arrival`, `departure` — null when
/// unknown or still going on — and `horizontalAccuracy` for visits).
struct EventWriter {
    let format: EventFormat

    func write(_ notice: RegionNotice) {
        switch notice {
        case .determined(let region, let state, let fix?):
            emit(event: "state", identifier: region.identifier, fix: fix, state: state.rawValue)
        case .entered(let region, let fix):
            emit(event: "enter", identifier: region.identifier, fix: fix)
        case .exited(let region, let fix):
            emit(event: "exit", identifier: region.identifier, fix: fix)
        default:
            break
        }
    }

    func writeSignificant(_ location: CLLocation) {
        emit(
            event: "significant", identifier: nil, time: location.timestamp,
            latitude: location.coordinate.latitude, longitude: location.coordinate.longitude
        )
    }

    /// A visit: `time` is when it was decided (the timestamp of the fix that decided it).
    func writeVisit(_ visit: Visit) {
        let arrival = visit.arrival?.formatted(LocationWriter.timestampFormat)
        let departure = visit.departure?.formatted(LocationWriter.timestampFormat)
        let stamp = visit.decidedAt.formatted(LocationWriter.timestampFormat)
        switch format {
        case .text:
            let kind = visit.departure == nil ? "arrival" : "visit"
            output(
                "\(stamp)  \(kind.padding(toLength: 11, withPad: " ", startingAt: 0))"
                    + " from \(arrival ?? "unknown") to \(departure ?? "now")"
                    + String(format: "  %+.6f, %+.6f  ± %.0f m", visit.latitude, visit.longitude, visit.horizontalAccuracy)
            )
        case .json:
            let object: [String: Any] = [
                "event": "visit", "time": stamp, "latitude": visit.latitude, "longitude": visit.longitude,
                "horizontalAccuracy": visit.horizontalAccuracy,
                "arrival": arrival ?? NSNull(), "departure": departure ?? NSNull(),
            ]
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                output(String(decoding: data, as: UTF8.self))
            }
        }
    }

    private func emit(event: String, identifier: String, fix: Fix, state: String? = nil) {
        emit(
            event: event, identifier: identifier, time: fix.timestamp, latitude: fix.latitude, longitude: fix.longitude,
            state: state)
    }

    private func emit(
        event: String, identifier: String?, time: Date, latitude: Double, longitude: Double, state: String? = nil
    ) {
        let stamp = time.formatted(LocationWriter.timestampFormat)
        switch format {
        case .text:
            var line = "\(stamp)  \(event.padding(toLength: 11, withPad: " ", startingAt: 0))"
            if let identifier { line += " \(identifier)" }
            if let state { line += " \(state)" }
            line += String(format: "  %+.6f, %+.6f", latitude, longitude)
            output(line)
        case .json:
            var object: [String: Any] = ["event": event, "time": stamp, "latitude": latitude, "longitude": longitude]
            if let identifier { object["identifier"] = identifier }
            if let state { object["state"] = state }
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) {
                output(String(decoding: data, as: UTF8.self))
            }
        }
    }

    /// One line to standard output, unbuffered, so a pipe sees each event as it happens.
    private func output(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
