/// Finds a serial receiver's baud rate by trying rates until checksummed sentences arrive. Pure: fed
/// with what was read and the time, it answers which rate to use.
///
/// At a wrong rate a UART delivers garbage (or nothing), and a valid checksum by chance is rare (1 in
/// 256 per line-shaped run of bytes), so `requiredSentences` (2) valid sentences lock the rate. A
/// rate is abandoned after `byteBudget` bytes or `timeBudget` seconds without them — the time bound
/// also covers receivers that send nothing we can frame; 2.5 s spans a 1 Hz receiver's full cycle.
/// After the last candidate it starts over, and says so (`cycledThroughAll`), so a caller can report
/// that nothing was found while it keeps trying.
public struct NMEABaudDetector: Sendable {
    /// Most common first: 9600 (most USB receivers), 4800 (the NMEA 0183 standard rate), then u-blox
    /// and high-rate receivers.
    public static let candidateRates = [9_600, 4_800, 115_200, 38_400, 57_600, 19_200]
    public static let requiredSentences = 2
    public static let byteBudget = 4_096
    public static let timeBudget = 2.5

    public enum Decision: Sendable, Equatable {
        /// Keep reading at the current rate.
        case keep
        /// Reconfigure the port to this rate and report again from the given time.
        case tryRate(Int)
        /// The rate is found; stop detecting.
        case locked(Int)
    }

    public let candidates: [Int]
    public private(set) var index = 0
    public private(set) var locked: Int?
    public private(set) var cycledThroughAll = false
    private var bytes = 0
    private var sentences = 0
    private var since: Double

    public init(candidates: [Int] = NMEABaudDetector.candidateRates, now: Double) {
        self.candidates = candidates.isEmpty ? Self.candidateRates : candidates
        self.since = now
    }

    /// The rate to configure now.
    public var currentRate: Int { locked ?? candidates[index] }

    /// Reports bytes read and valid sentences decoded at the current rate since the last call.
    public mutating func observe(bytes count: Int, validSentences: Int, now: Double) -> Decision {
        if let locked { return .locked(locked) }
        bytes += count
        sentences += validSentences
        if sentences >= Self.requiredSentences {
            locked = candidates[index]
            return .locked(candidates[index])
        }
        if bytes >= Self.byteBudget || now - since >= Self.timeBudget {
            index += 1
            if index == candidates.count {
                index = 0
                cycledThroughAll = true
            }
            bytes = 0
            sentences = 0
            since = now
            return .tryRate(candidates[index])
        }
        return .keep
    }
}
