import CoreLocationEngine
import CoreLocationRuntime
import NIOCore
import Synchronization

/// The part of a gpsd client that fixes reach on the thread that delivers them (the source's reader): its reports
/// are written there, straight into its socket (`ConnectionOutput`, decision 0042), as gpsd writes them from its one
/// loop — no hop to the event loop per fix. What a report depends on (the watch, the app's decision) is decided on
/// the connection's event loop and copied here at each change (`publish`), before anything that change answers is
/// sent, so a client never gets a report its watch or its app's decision does not allow.
final class GPSDFixWriter: Sendable {
    struct Watch: Sendable {
        var enable = false
        var json = false
        var nmea = false
        /// Whether the app may have locations: nil while unknown or undecided.
        var allowed: Bool?
        /// Whether it may have them at full accuracy: only then is `SKY` written.
        var fullAccuracy = false
        /// The receivers' own sentences are relayed to it (decision 0090): none are made from its fixes.
        var relaying = false
    }

    let output: ConnectionOutput
    private let sources: SharedSources
    private let state = Mutex<(watch: Watch, lastFix: Fix?)>((Watch(), nil))

    init(output: ConnectionOutput, sources: SharedSources) {
        self.output = output
        self.sources = sources
    }

    /// The last fix this client was given (`?POLL`).
    var lastFix: Fix? { state.withLock { $0.lastFix } }

    func publish(_ watch: Watch) {
        state.withLock { $0.watch = watch }
    }

    /// One delivery of the engine, on the thread that made it: the client's reports, written at once (once the
    /// connection is closed, its output writes nothing).
    func deliver(_ delivery: Delivery) {
        guard let last = delivery.fixes.last else { return }
        let watch = state.withLock { state -> Watch? in
            guard state.watch.enable, state.watch.allowed != false else { return nil }
            state.lastFix = last
            return state.watch
        }
        guard let watch else { return }
        // The usual delivery is one shared TPV line, written as it is (no copy); more lines are joined into one write.
        var out: ByteBuffer?
        // No receiver's own sentences for this client: sentences made from what it is given (decision 0090).
        if watch.nmea, watch.allowed == true, !watch.relaying {
            for fix in delivery.fixes { Self.append(ByteBuffer(string: GPSDPseudoNMEA.sentences(fix)), to: &out) }
        }
        if watch.json {
            for fix in delivery.fixes { Self.append(GPSDReport.tpvLine(fix), to: &out) }
            // gpsd writes an epoch's SKY after its TPV.
            if watch.fullAccuracy, let view = sources.satelliteView(for: last) {
                Self.append(GPSDReport.skyLine(view), to: &out)
            }
        }
        if let out { output.send(out) }
    }

    private static func append(_ line: ByteBuffer, to out: inout ByteBuffer?) {
        guard var joined = out else {
            out = line
            return
        }
        joined.writeImmutableBuffer(line)
        out = joined
    }

    /// A live receiver's sentences, relayed as they come while the client watches with `nmea` at full accuracy.
    func relay(_ lines: String) {
        guard state.withLock({ $0.watch.relaying }) else { return }
        output.send(ByteBuffer(string: lines))
    }
}
