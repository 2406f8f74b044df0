import Foundation
import CoreLocationGeodesy

/// When automatic pausing stops a client's updates, and how it watches for the user leaving.
///
/// A client that asked for `pausesAutomatically` is paused once every fix for `stillFor` seconds
/// lay within `stillRadius` metres (or twice the fixes' accuracy, if larger) of the first of them.
/// Its updates stop, it no longer asks the sources for anything, and the engine watches a
/// *stationary region*: a circle of `regionRadius` metres (at least twice the last fix's accuracy)
/// around where the user stopped. To watch it cheaply the engine asks for a fix only every
/// `probeInterval` seconds: the sources power up until a fix good enough to tell (accuracy ≤ the
/// region's radius) arrives, or for `probeTimeout` seconds at most, then power down again. The
/// first fix clearly outside the region (its distance minus its accuracy beyond the radius)
/// resumes the updates with that fix. Starting updates again, or changing their settings,
/// resumes at once, and stillness counts again only from then (so an app that restarts updates
/// in `locationManagerDidPauseLocationUpdates` is not paused again at the next fix).
///
/// Thresholds per `CLActivityType` (Apple documents the idea, not the numbers; these are ours):
///
/// | activity | still for | probe every | why |
/// |---|---|---|---|
/// | other (1) | 180 s | 60 s | a walk's short stops pass; a real stop does not |
/// | automotiveNavigation (2) | 300 s | 30 s | red lights and queues do not pause; leaving a car park at 10 m/s needs a prompt check |
/// | fitness (3) | 120 s | 30 s | runners wait at crossings for less; a longer stop is a break |
/// | otherNavigation (4) | 300 s | 60 s | boats and trains wait at locks and stations |
/// | airborne (5) | 600 s | 60 s | aircraft hold and taxi for minutes |
public struct AutoPausePolicy: Sendable, Hashable, Codable {
    /// Seconds the user must stand still before updates pause.
    public var stillFor: Double
    /// Seconds between two looks at the stationary region while paused.
    public var probeInterval: Double

    public init(stillFor: Double, probeInterval: Double) {
        self.stillFor = stillFor
        self.probeInterval = probeInterval
    }

    /// The times divided by `scale` (a replay faster than recorded pace); a scale ≤ 0 or NaN is 1.
    public func scaled(by scale: Double) -> AutoPausePolicy {
        guard scale > 0, scale.isFinite else { return self }
        return AutoPausePolicy(stillFor: stillFor / scale, probeInterval: probeInterval / scale)
    }

    /// The policy for a `CLActivityType` raw value; unknown values get `other`'s.
    public static func forActivity(_ rawValue: Int) -> AutoPausePolicy {
        switch rawValue {
        case 2: AutoPausePolicy(stillFor: 300, probeInterval: 30)
        case 3: AutoPausePolicy(stillFor: 120, probeInterval: 30)
        case 4: AutoPausePolicy(stillFor: 300, probeInterval: 60)
        case 5: AutoPausePolicy(stillFor: 600, probeInterval: 60)
        default: AutoPausePolicy(stillFor: 180, probeInterval: 60)
        }
    }
}

/// A paused client's stationary region and probe timer.
struct PauseState: Sendable, Hashable {
    var latitude: Double
    var longitude: Double
    var radius: Double
    var probe: ProbeTimer
}

extension LocationEngine {
    /// Pauses every client whose user has stood still long enough.
    mutating func pauseStillClients(at now: Double, into actions: inout [EngineAction]) {
        guard let since = pauseDetector.stillSince, let fix = latest?.fix else { return }
        for id in clientOrder {
            // Checked in place first: most fixes pause nobody, and a copy of the state costs.
            guard withClient(id, { $0.pause == nil && $0.updates?.pausesAutomatically == true }) == true,
                var client = clients[id], client.pause == nil, let updates = client.updates,
                updates.pausesAutomatically, client.authorization.allowsLocation
            else { continue }
            let policy = AutoPausePolicy.forActivity(updates.activityType).scaled(by: configuration.pauseTimeScale)
            guard now - max(since, client.updatesSince) >= policy.stillFor else { continue }
            if client.deferral != nil {
                // What was held back is the app's; it should not wait out the pause.
                deliverHeldFixes(of: client, id, into: &actions)
                client.deferral?.batch.removeAll()
                client.deferral?.start = nil
            }
            client.pause = PauseState(
                latitude: fix.latitude, longitude: fix.longitude,
                radius: max(configuration.pauseRegionRadius, 2 * fix.horizontalAccuracy),
                probe: ProbeTimer(interval: policy.probeInterval, at: now)
            )
            if client.pending == nil { client.unknownDeadline = nil }
            clients[id] = client
            actions.append(.paused(id))
        }
    }

    /// A fix while some clients are paused: leaving the stationary region resumes them; a fix
    /// inside, good enough to tell, ends the probe.
    mutating func watchStationaryRegions(_ fix: Fix, at now: Double, into actions: inout [EngineAction]) {
        for id in clientOrder {
            guard withClient(id, { $0.pause != nil }) == true, var client = clients[id], var pause = client.pause else {
                continue
            }
            let distance = Geodesic.wgs84.inverse(
                latitude1: pause.latitude, longitude1: pause.longitude, latitude2: fix.latitude, longitude2: fix.longitude
            ).distance
            if distance - fix.horizontalAccuracy > pause.radius {
                client.pause = nil
                client.updatesSince = now
                client.unknownDeadline = now + configuration.locationUnknownTimeout
                clients[id] = client
                actions.append(.resumed(id))
                offer(fix, to: id, at: now, isCached: false, into: &actions)
            } else if pause.probe.isProbing, fix.horizontalAccuracy <= pause.radius {
                pause.probe.sawFix(at: now)
                client.pause = pause
                clients[id] = client
            }
        }
    }

    /// Starts and ends probes on time.
    mutating func expirePauseProbes(at now: Double) {
        for id in clients.keys {
            clients[id]?.pause?.probe.tick(at: now, timeout: configuration.probeTimeout)
        }
    }
}
