/// A look now and then instead of watching all the time: wait `interval`, then want fixes until
/// one that can tell arrives or `timeout` passes, then wait again. Automatic pausing watches its
/// stationary regions this way, and quiet monitoring its services.
struct ProbeTimer: Sendable, Hashable {
    /// Seconds between two looks.
    var interval: Double
    /// Engine time of the next look; while looking, the look's last moment.
    private(set) var deadline: Double
    private(set) var isProbing = false

    /// Waiting for the first look, `interval` from `now`.
    init(interval: Double, at now: Double) {
        self.interval = interval
        deadline = now + interval
    }

    /// A fix that could tell arrived: the look (if any) is over; wait a full interval from now.
    mutating func sawFix(at now: Double) {
        isProbing = false
        deadline = now + interval
    }

    /// At the deadline a wait becomes a look (of at most `timeout` seconds) and a look that found
    /// nothing becomes a wait.
    mutating func tick(at now: Double, timeout: Double) {
        guard now >= deadline else { return }
        if isProbing {
            sawFix(at: now)
        } else {
            isProbing = true
            deadline = now + timeout
        }
    }
}

extension LocationEngine.Configuration {
    /// The longest probe, seconds, at this configuration's time scale.
    var probeTimeout: Double {
        pauseTimeScale > 0 && pauseTimeScale.isFinite ? pauseProbeTimeout / pauseTimeScale : pauseProbeTimeout
    }
}
