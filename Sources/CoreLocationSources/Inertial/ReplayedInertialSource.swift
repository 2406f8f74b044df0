import CoreLocationEngine
import Foundation

/// A recorded drive's IMU (`.imu.csv`, docs/imu-recording-format.md) replayed on a `Scheduler`, beside the drive's
/// NMEA or GPX replay (decision 0095, Wiring).
///
/// Time: a recording's `t` is on the GNSS recording's clock (seconds since 1970 for NMEA and GPX); a sample is handed
/// out at the timeline instant `t − origin`, stamped with that instant, where `origin` is the recording time of
/// instant 0 (by default the scheduler's wall clock at 0: a `ReplayScheduler` made with the recording's start, as
/// `locationctl` makes it). So samples and fixes interleave on the timeline as they did in the drive, and a replay
/// at any speed (`ReplayScheduler`'s, as fast as possible too, or a `ManualScheduler` moved by hand) hands the
/// engine the same samples in the same order.
///
/// Powered on at instant s, it starts with the first sample at or after s (what a sensor switched on then would
/// have read); stopped, it hands out nothing more; started again, it goes on from the timeline's present. On a
/// timeline that runs as fast as possible, one step hands out up to `fastReplayBatch` samples at once while nothing
/// else is due before them (`ReplayScheduler.continueInline`); otherwise one sample a step. Nothing is left over at
/// the end: the source simply has no more samples (an `InertialSource` has no "finished").
public final class ReplayedInertialSource: InertialSource {
    /// Samples handed out per step at most when the timeline runs as fast as possible.
    static let fastReplayBatch = 64

    public let name: String
    public var isSimulated: Bool { true }
    public let sampleRate: Double
    /// The samples, stamped on the timeline (recording time − origin), in time order.
    public let samples: [InertialSample]

    private struct Cursor: Sendable {
        var next = 0
        var work: (any ScheduledWork)?
    }

    private let scheduler: any Scheduler
    private let run: SourceRun<Cursor, InertialSourceEvent>

    /// - Parameters:
    ///   - samples: the recording's samples, times on the recording's clock, in time order (as
    ///     `InertialRecording.decode` returns them).
    ///   - origin: the recording time of timeline instant 0; nil: `scheduler.wallClock(at: 0)` in seconds since 1970.
    public init(samples: [InertialSample], name: String, scheduler: any Scheduler, origin: Double? = nil) {
        let origin = origin ?? scheduler.wallClock(at: 0).timeIntervalSince1970
        self.samples = samples.map { sample in
            var shifted = sample
            shifted.time -= origin
            return shifted
        }
        self.name = name
        self.scheduler = scheduler
        let span = (samples.last?.time ?? 0) - (samples.first?.time ?? 0)
        sampleRate = samples.count > 1 && span > 0 ? Double(samples.count - 1) / span : 0
        run = SourceRun(Cursor(), events: InertialSourceEvent.self, exclusiveDelivery: true)
    }

    /// Replays the `.imu.csv` file at `path`.
    /// - Throws: `FileProblem` when the file cannot be read, `InertialRecording.DecodingError` when it is not one.
    public convenience init(path: String, scheduler: any Scheduler, origin: Double? = nil) throws {
        if let problem = FileProblem.check(path) { throw problem }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let samples = try InertialRecording.decode(text)
        self.init(samples: samples, name: "replay \((path as NSString).lastPathComponent)", scheduler: scheduler,
            origin: origin)
    }

    public func start(_ handler: @escaping @Sendable (InertialSourceEvent) -> Void) {
        let now = scheduler.now
        let stale = run.exclusively {
            run.start(handler) { run -> (any ScheduledWork)? in
                let old = run.work
                run.work = nil
                run.next = samples.partitioningIndex { $0.time >= now }
                return old
            }
        }
        stale.1?.cancel()
        schedule(generation: stale.generation)
    }

    public func stop() {
        let work = run.exclusively { run.stop { run -> (any ScheduledWork)? in
            defer { run.work = nil }
            return run.work
        } }
        work?.cancel()
    }

    private func schedule(generation: Int) {
        run.ifCurrent(generation) { run in
            guard run.next < samples.count else { return }
            let deadline = samples[run.next].time
            run.work = scheduler.schedule(at: deadline) { [weak self] in self?.step(generation: generation) }
        }
    }

    /// Hands out the samples due now (more, as fast as possible, while nothing else is due first), then schedules
    /// the next step.
    private func step(generation: Int) {
        let now = scheduler.now
        let batch: [InertialSample]? = run.ifCurrent(generation) { run in
            run.work = nil
            var batch: [InertialSample] = []
            while run.next < samples.count {
                let sample = samples[run.next]
                guard sample.time <= now
                    || (batch.count < Self.fastReplayBatch
                        && (scheduler as? ReplayScheduler)?.continueInline(to: sample.time) == true)
                else { break }
                batch.append(sample)
                run.next += 1
            }
            return batch
        }
        guard let batch else { return }
        if !batch.isEmpty, !run.emit([.samples(batch)], generation) { return }
        schedule(generation: generation)
    }
}

extension Array {
    /// The first index whose element satisfies `belongs`, for a predicate false then true along the array.
    fileprivate func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
