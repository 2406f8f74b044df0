import CoreLocationEngine
import Foundation

/// What `locationctl report` prints at the end: how many fixes were uploaded and how faithful the
/// uploaded track is.
///
/// Moving and settled time come from a shadow `BoundedPolicy` with default parameters fed the same
/// fixes, so every policy (the recipe too) is judged on the same split; a fix counts as moving when
/// that shadow was moving after seeing it. SED is measured on the good moving fixes against all the
/// uploaded points, sorted by their own time.
public struct ReportSummary: Sendable {
    public private(set) var fixesSeen = 0
    public private(set) var decisions: [ReportDecision] = []
    public private(set) var movingSeconds = 0.0
    public private(set) var settledSeconds = 0.0
    private var shadow = BoundedPolicy()
    private var movingFixes: [ReportPoint] = []
    private var settledUploads = 0
    private var lastTime: Double?
    private var lastPhase = BoundedPolicy.Phase.moving

    public init() {}

    public mutating func observe(_ fix: Fix) {
        fixesSeen += 1
        _ = shadow.handle(fix)
        guard shadow.lastFixWasGood else { return }
        let point = ReportPoint(fix)
        if let lastTime, point.time > lastTime {
            let dt = min(point.time - lastTime, 1800)
            if lastPhase == .settled, shadow.phase == .settled { settledSeconds += dt } else { movingSeconds += dt }
        }
        lastTime = point.time
        lastPhase = shadow.phase
        if shadow.phase == .moving { movingFixes.append(point) }
    }

    /// Time passing with no fix: the shadow's silence rule may settle it (`BoundedPolicy.tick(at:)`).
    public mutating func passTime(to now: Date) {
        _ = shadow.tick(at: now)
        lastPhase = shadow.phase
    }

    public mutating func record(_ decisions: [ReportDecision]) {
        for decision in decisions {
            self.decisions.append(decision)
            if lastPhase == .settled, decision.kind != .arrival { settledUploads += 1 }
        }
    }

    public var uploads: Int { decisions.count }

    public var uploadedPercent: Double { fixesSeen == 0 ? 0 : 100 * Double(uploads) / Double(fixesSeen) }

    public var uploadsPerMovingHour: Double {
        movingSeconds > 0 ? Double(uploads - settledUploads) / (movingSeconds / 3600) : 0
    }

    public var uploadsWhileSettled: Int { settledUploads }

    /// SED of each moving fix, metres.
    public var sed: [Double] {
        let track = decisions.map(\.point).sorted { $0.time < $1.time }
        return SynchronizedDistance.sed(of: movingFixes, against: track)
    }

    /// The q-quantile (0…1) of `values` (nearest rank); nil when empty.
    public static func quantile(_ values: [Double], _ q: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank - 1, 0), sorted.count - 1)]
    }
}
