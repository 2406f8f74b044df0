import Foundation
import CoreLocationGeodesy
import CoreLocationEngine

let home = MonitoredRegion(identifier: "home", latitude: 45.0, longitude: 6.0, radius: 200)

/// A point `metres` from (lat, lon) along `azimuth` degrees, on the WGS84 geodesic.
func point(from lat: Double, _ lon: Double, azimuth: Double, metres: Double) -> (Double, Double) {
    let p = Geodesic.wgs84.direct(latitude1: lat, longitude1: lon, azimuth1: azimuth, distance: metres)
    return (p.latitude, p.longitude)
}

extension EngineDriver {
    /// Region notices to one client, in order.
    func notices(to client: ClientID) -> [RegionNotice] {
        actions.compactMap {
            if case .region(let id, let notice) = $0.action, id == client { return notice }
            return nil
        }
    }

    /// A compact trace of one client's region notices: "start:home", "in:home", "enter:home" …
    func trace(_ client: ClientID) -> [String] {
        notices(to: client).map { notice in
            switch notice {
            case .started(let r): "start:\(r.identifier)"
            case .failed(let r, let failure): "fail:\(r.identifier):\(failure.rawValue)"
            case .determined(let r, let state, _):
                "\(state == .inside ? "in" : state == .outside ? "out" : "unknown"):\(r.identifier)"
            case .entered(let r, _): "enter:\(r.identifier)"
            case .exited(let r, _): "exit:\(r.identifier)"
            }
        }
    }

    /// Sends one fix from source `gnss` at the current time.
    mutating func feed(_ lat: Double, _ lon: Double, accuracy: Double = 5) {
        send(.source(gnss.id, .fix(fix(lat, lon, accuracy: accuracy, at: now))))
    }
}
