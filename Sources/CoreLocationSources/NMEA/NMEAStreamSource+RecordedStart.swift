import Foundation
import CoreLocationEngine

extension NMEAStreamSource {
    /// The date a replay of the log at `path` stands for at its first step: the first fix's timestamp less the
    /// recorded gap from the log's first timed sentence to that fix (`NMEAReplay` paces by those gaps). A timeline
    /// made with this origin (`ReplayScheduler(wallOrigin:)`), whose replay is powered at instant 0, hands out each fix
    /// at the instant `timestamp − origin`: what an `.imu.csv` replay beside it needs (`ReplayedInertialSource`).
    /// Nil when the file cannot be read or holds no fix. Needs dated fixes (RMC); reads up to the first fix only.
    public static func recordedStart(path: String) -> Date? {
        guard var replay = try? NMEAReplay(path: path) else { return nil }
        let received = Date(timeIntervalSince1970: 0)
        var firstTime: Double?
        while let (event, time) = replay.peek(receivedAt: received) {
            _ = replay.next(receivedAt: received)
            if firstTime == nil { firstTime = time }
            guard case let .fix(fix) = event else { continue }
            var gap = (time ?? 0) - (firstTime ?? time ?? 0)
            if gap < -43_200 { gap += 86_400 }
            return fix.timestamp.addingTimeInterval(-max(0, gap))
        }
        return nil
    }
}
