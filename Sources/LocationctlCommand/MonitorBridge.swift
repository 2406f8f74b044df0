import CoreLocation
import CoreLocationRuntime
import CoreLocationSources
import Foundation
import CoreLocationEngine
import Synchronization

/// The events of `locationctl monitor`'s runtime client, as one async stream on the main actor.
final class MonitorBridge: Sendable {
    enum Event {
        case authorization(AuthorizationLevel)
        case notice(RegionNotice)
        case visit(Visit)
        case significant(Fix)
        case failed(String, CLError)
        case sourceFinished
    }

    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation

    init() {
        (events, continuation) = AsyncStream<Event>.makeStream()
    }

    func sourceFinished(after flow: DeliveryFlow) {
        let continuation = self.continuation
        // After the events already queued on the main queue.
        ManagerBridge.afterDeliveries(flow) { continuation.yield(.sourceFinished) }
    }

    func authorizationChanged(_ authorization: ClientAuthorization) {
        yield(.authorization(authorization.level))
    }

    /// One event of the client, from the runtime's thread: the regions of `group` (this run's) and every
    /// significant change and visit, in the order the engine made them.
    func handle(_ event: ClientEvent, group: String) {
        switch event {
        case .authorization(let authorization):
            authorizationChanged(authorization)
        case .region(.failed(let region, let failure)) where region.group == group:
            let code: CLError.Code = failure == .denied ? .regionMonitoringDenied : .regionMonitoringFailure
            yield(.failed(region.identifier, CLError(code, userInfo: [NSLocalizedDescriptionKey: failure.message])))
        case .region(let notice):
            if Self.group(of: notice) == group { yield(.notice(notice)) }
        case .delivery(let delivery):
            for fix in delivery.fixes { yield(.significant(fix)) }
        case .visit(let visit):
            yield(.visit(visit))
        default:
            break
        }
    }

    private static func group(of notice: RegionNotice) -> String {
        switch notice {
        case .started(let region), .failed(let region, _), .determined(let region, _, _), .entered(let region, _),
            .exited(let region, _):
            region.group
        }
    }

    /// Queued behind what the main queue holds already, so the stream keeps the runtime's order.
    private func yield(_ event: Event) {
        let continuation = self.continuation
        DispatchQueue.main.async { continuation.yield(event) }
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

    func writeSignificant(_ fix: Fix) {
        emit(event: "significant", identifier: nil, time: fix.timestamp, latitude: fix.latitude, longitude: fix.longitude)
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
