import Foundation

extension EngineDriver {
    /// What a replay through a power-switched source cost and produced.
    public struct ReplayOutcome: Sendable, Hashable {
        /// Seconds the source was powered, from the replay's first fix time to its last.
        public var onTime: Double
        /// Recorded fixes the source delivered (the rest fell while it was off or warming up).
        public var delivered: Int
        /// Recorded fixes in all.
        public var recorded: Int
    }

    /// Replays a recording through one source the way the hardware would behave: a fix recorded at
    /// time `t` reaches the engine only if the source was powered at `t` and had been for at least
    /// `warmUp` seconds (a receiver's time to a fix after power-up). Time moves to each fix in turn,
    /// ticking at every deadline on the way, and on to `end` (default: the last fix) after them.
    ///
    /// - Parameter fixes: (engine time, fix) pairs in time order.
    @discardableResult
    public mutating func replay(
        _ fixes: [(time: Double, fix: Fix)], through source: SourceID, warmUp: Double = 1, until end: Double? = nil
    ) -> ReplayOutcome {
        var poweredSince: Double? = engine.status(at: now).sources.first { $0.descriptor.id == source }?.isPowered == true
            ? now : nil
        var seen = actions.count
        let before = onTime(of: source)
        var delivered = 0
        // Follows the source's power through the actions recorded since the last look.
        func follow(_ driver: EngineDriver) {
            for (time, action) in driver.actions[seen...] {
                switch action {
                case let .powerOn(id) where id == source: poweredSince = time
                case let .powerOff(id) where id == source: poweredSince = nil
                default: break
                }
            }
            seen = driver.actions.count
        }
        for (time, fix) in fixes {
            advance(to: time)
            follow(self)
            guard let since = poweredSince, time - since >= warmUp else { continue }
            send(.source(source, .fix(fix)))
            delivered += 1
            follow(self)
        }
        if let end { advance(to: end) }
        return ReplayOutcome(onTime: onTime(of: source) - before, delivered: delivered, recorded: fixes.count)
    }

    private func onTime(of source: SourceID) -> Double {
        engine.status(at: now).sources.first { $0.descriptor.id == source }?.onTime ?? 0
    }
}

extension EngineDriver {
    /// Replays a drive with its IMU (decision 0095): `fixes` (engine time, fix) through the position source `source`
    /// and `samples` (stamped on the engine's clock) through the inertial source `inertial`, interleaved by time as a
    /// replay's timeline interleaves them — at equal times the sample first — with time moved, and ticks sent, to
    /// each in turn. Every input is sent whatever the sources' power (a recording has them all).
    public mutating func replay(
        _ fixes: [(time: Double, fix: Fix)], through source: SourceID, samples: [InertialSample],
        through inertial: SourceID
    ) {
        var next = 0
        func sendFixes(before time: Double) {
            while next < fixes.count, fixes[next].time < time {
                advance(to: fixes[next].time)
                send(.source(source, .fix(fixes[next].fix)))
                next += 1
            }
        }
        for sample in samples {
            sendFixes(before: sample.time)
            advance(to: sample.time)
            send(.source(inertial, .inertial([sample])))
        }
        sendFixes(before: .infinity)
    }
}
