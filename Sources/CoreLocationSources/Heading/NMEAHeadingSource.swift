import Foundation
import CoreLocationEngine
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// A heading source reading NMEA HDT, HDG and THS sentences (GNSS compasses, marine heading sensors)
/// from its own connection to an `NMEAInput`; other sentences are ignored, a bad checksum drops the
/// line. Samples are stamped with the scheduler's wall clock when the line arrives (heading sentences
/// carry no time); see `GNSSHeading` for the rules and accuracy.
///
/// Serial inputs open at their `baud` (9600 when none is given: no auto-detection here); a recorded
/// file is read as fast as possible. When the input fails or ends, `.unavailable` is reported and it is
/// reopened every `reopenInterval` seconds.
public final class NMEAHeadingSource: HeadingSource {
    public let input: NMEAInput
    public let reopenInterval: Double
    public var name: String { "NMEA heading (\(input))" }
    public var isSimulated: Bool { false }

    private let scheduler: any Scheduler
    private let logger: Logger
    /// Delivers exclusively: nothing after `stop()` returns, and a handler may call `stop()`.
    let state = SourceRun(State(), events: HeadingSourceEvent.self, exclusiveDelivery: true)

    struct State {
        var splitter = NMEALineSplitter()
        var parser = NMEAParser()
        /// The last problem logged, so a device that stays absent is logged once, not every reopen.
        var lastProblem: String?
    }

    /// Whether `start` opens the input; tests that `feed` bytes themselves turn it off.
    let opensInput: Bool

    public convenience init(
        input: NMEAInput, scheduler: any Scheduler, reopenInterval: Double = 2,
        logger: Logger = Logger(label: "corelocation.heading.nmea")
    ) {
        self.init(input: input, scheduler: scheduler, reopenInterval: reopenInterval, logger: logger, opensInput: true)
    }

    init(
        input: NMEAInput, scheduler: any Scheduler, reopenInterval: Double = 2,
        logger: Logger = Logger(label: "corelocation.heading.nmea"), opensInput: Bool
    ) {
        self.opensInput = opensInput
        self.input = input
        self.scheduler = scheduler
        self.reopenInterval = reopenInterval.isFinite ? max(0.05, reopenInterval) : 2
        self.logger = logger
    }

    public func start(_ handler: @escaping @Sendable (HeadingSourceEvent) -> Void) {
        let generation = state.exclusively {
            state.start(handler) { $0.splitter = NMEALineSplitter() }.generation
        }
        guard opensInput else { return }
        NamedThread.start("cl-heading-nmea") { [weak self] in self?.run(generation: generation) }
    }

    public func stop() {
        state.exclusively { state.stop() }
    }

    /// Decodes bytes as they arrived from the input and delivers their headings.
    public func feed(_ bytes: [UInt8]) {
        feed(bytes, generation: nil)
    }

    @discardableResult
    func feed(_ bytes: [UInt8], generation: Int?) -> Bool {
        let timestamp = scheduler.wallNow
        return state.exclusively {
            let taken = state.withLock { state -> (run: Int, samples: [HeadingSample])? in
                guard state.isRunning, generation == nil || generation == state.generation else { return nil }
                var samples: [HeadingSample] = []
                state.extra.splitter.feed(bytes) { line in
                    guard let sentence = state.extra.parser.parse(Array(line)),
                        let (heading, accuracy) = GNSSHeading.reported(from: sentence)
                    else { return }
                    samples.append(GNSSHeading.sample(heading, accuracy: accuracy, at: timestamp))
                }
                return (state.generation, samples)
            }
            guard let taken else { return false }
            return state.emit(taken.samples.map { .sample($0) }, taken.run)
        }
    }

    func report(_ reason: String, generation: Int) -> Bool {
        state.exclusively {
            let isNew = state.ifCurrent(generation) { state -> Bool in
                defer { state.lastProblem = reason }
                return state.lastProblem != reason
            }
            guard let isNew else { return false }
            if isNew { logger.warning("NMEA heading input unavailable", metadata: ["reason": "\(reason)"]) }
            return state.emit(.unavailable(reason: reason), generation)
        }
    }

}
