import Foundation

/// Quiet monitoring: what keeps region monitoring, the significant-change service and visits cheap
/// on a device whose only source is a GNSS receiver.
///
/// They watch for movement, and a device that stands still does not move: once every fix for
/// `monitoringQuietAfter` (120 s) lay within `pauseStillRadius` (25 m, or twice the fixes'
/// accuracy) of the first of them — or once the user is staying somewhere by `StayTracker`'s rule
/// (decision 0064: 5 minutes of fixes whose mean did not walk, however widely they wander indoors),
/// and the last fix was within the stay — they ask the sources for nothing but a look every
/// `monitoringProbeInterval` (60 s): powered until a fix arrives or `pauseProbeTimeout` (15 s)
/// passes. With the visits service on, the condition is instead being settled in a visit
/// (confirmed, last fix inside): a stay still forming, or a slow stroll, needs every fix to be
/// told from a stop. The first fix that breaks the condition ends the quiet, and they watch without
/// a break again. So an hour parked costs about a minute of receiver time, and a crossing, a
/// significant change or a departure after standing still is noticed up to one interval late.
/// Standard updates and `requestLocation` are not affected (automatic pausing is theirs).
extension LocationEngine {
    /// Whether any monitoring service is asking for locations. Asked after every fix and every tick, so it reads
    /// the counts `ClientTable` keeps as each client changes, not every client (issue 37).
    var isMonitoring: Bool {
        (regionsAuthorized && regions.count > 0) || clients.significantCount > 0 || clients.visitsCount > 0
    }

    /// After each fix: become quiet, stay quiet (a look that found its fix ends), or wake up.
    mutating func updateQuietMonitoring(at now: Double) {
        let interval = configuration.monitoringProbeInterval
        let still = pauseDetector.stillSince.map { now - $0 >= configuration.monitoringQuietAfter } ?? false
        let quiet = visitDetector.map(\.isSettled) ?? (still || stay.isSettled)
        // A `requestState(for:)` waiting for its answer needs fixes now.
        guard isMonitoring, interval > 0, quiet, regions.stateRequests.isEmpty else {
            monitoringProbe = nil
            return
        }
        if var probe = monitoringProbe {
            if probe.isProbing { probe.sawFix(at: now) }
            monitoringProbe = probe
        } else {
            monitoringProbe = ProbeTimer(interval: interval, at: now)
        }
    }

    /// Starts and ends looks on time.
    mutating func expireMonitoringProbe(at now: Double) {
        guard monitoringProbe != nil else { return }
        guard isMonitoring else {
            monitoringProbe = nil
            return
        }
        monitoringProbe?.tick(at: now, timeout: configuration.probeTimeout)
    }
}
