import Foundation

/// GNSS + IMU fusion in the engine (decision 0095, Wiring; the rules are `InertialFusion`'s).
///
/// Nothing here runs without an inertial source's samples: `fusion` stays nil and every fix goes out as its source
/// made it, exactly as before fusion existed.
extension LocationEngine {
    var fusionParameters: InertialFusion.Parameters {
        var parameters = configuration.fusion ?? InertialFusion.Parameters()
        // The barometer's noise is the altitude filter's sensor model (decision 0032) unless fusion says otherwise.
        if configuration.fusion == nil, let altitude = configuration.altitude {
            parameters.filter.pressureNoise = altitude.pressureNoise
        }
        return parameters
    }

    /// A source whose fixes are fused: a position source at most `gnssClassAccuracy` metres.
    func isGNSSClass(_ descriptor: SourceDescriptor) -> Bool {
        !descriptor.isBarometer && !descriptor.isInertial
            && descriptor.expectedAccuracy <= fusionParameters.gnssClassAccuracy
    }

    /// The fix to deliver for `fix` from the source at `index`: fused when the source is GNSS-class and samples are
    /// arriving, else `fix` itself (and a filter whose samples stopped is dropped). `measured` is the fix as the
    /// source made it: its altitude, not the altitude filter's, is the filter's GNSS height measurement.
    mutating func fused(
        _ fix: Fix, measured: Fix, from index: Dictionary<SourceID, SourceState>.Index, at now: Double
    ) -> Fix {
        guard fusion != nil, isGNSSClass(sources.values[index].descriptor) else { return fix }
        guard fusion?.hasInertialInput(at: now) == true else {
            fusion = nil
            return fix
        }
        return fusion?.fuse(fix, measured: measured, from: sources.keys[index], at: now) ?? fix
    }

    /// Arbitration in an outage (decision 0025 with fusion): while the filter dead-reckons for the source that owns
    /// the stream, a fix from another source takes it only when better than the last dead-reckoned fix aged like any
    /// fix — a 100 m Wi-Fi fix does not replace a 6 m dead-reckoned one because the receiver said "no fix".
    func keepsDeadReckoning(over fix: Fix, from id: SourceID, at now: Double) -> Bool {
        guard let fusion, let output = fusion.lastFused, let owner = fusion.lastGNSS?.source, owner != id,
            owner == deliveringSource, now - output.at <= 2 * 1.5, let state = sources[owner], state.powered,
            !state.isFinished
        else { return false }
        let aged = output.fix.horizontalAccuracy + max(0, now - output.at) * Self.accuracyAgeing
        return fix.horizontalAccuracy >= aged - Self.switchMargin * output.fix.horizontalAccuracy
    }

    /// Samples from the inertial source at `index`: each propagates the filter; a dead-reckoned fix that falls due
    /// (in a GNSS outage) is delivered at its sample's time, as long as the GNSS source that fed the filter is still
    /// the one delivering and is on.
    mutating func observeInertial(
        _ samples: [InertialSample], from index: Dictionary<SourceID, SourceState>.Index, at now: Double,
        into actions: inout [EngineAction]
    ) {
        guard sources.values[index].powered else { return }
        if fusion == nil {
            fusion = InertialFusion(
                parameters: fusionParameters, isSimulated: sources.values[index].descriptor.isSimulated)
        }
        for sample in samples {
            guard var fix = fusion?.propagate(sample), let gnss = fusion?.lastGNSS?.source,
                gnss == deliveringSource, let state = sources[gnss], state.powered, !state.isFinished
            else { continue }
            // A sample is never later than its arrival, nor (on one timeline) earlier than the last input.
            let at = min(now, max(sample.time, lastInputAt))
            // The altitude filter gives the floor (and the altitude while the fusion filter has no height); it is
            // not fed the fusion filter's height as if it were a GNSS altitude (decision 0095, Height).
            let vertical = (fix.altitude, fix.ellipsoidalAltitude, fix.verticalAccuracy)
            fix.verticalAccuracy = -1
            fix = altitude.fuse(fix, at: at)
            if vertical.2 > 0 { (fix.altitude, fix.ellipsoidalAltitude, fix.verticalAccuracy) = vertical }
            deliver(fix, at: at, into: &actions)
        }
    }
}
