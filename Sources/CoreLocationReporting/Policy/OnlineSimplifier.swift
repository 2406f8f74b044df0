/// An online, error-bounded track simplifier (opening window over synchronized Euclidean distance).
///
/// The last uploaded point is the *anchor*; the fixes seen since are the *window*, the newest of
/// them the *candidate*. A new fix extends the window when the segment anchor→fix keeps every fix
/// of the window within `epsilon` metres (SED, `SynchronizedDistance`); otherwise the candidate is
/// uploaded, becomes the anchor, and the new fix starts the next window. So every fix seen lies
/// within ε of the uploaded track once the next point is uploaded; a fix is never uploaded before
/// the fix after it has been seen (a lag of one fix). The window is bounded (`maximumWindow` fixes;
/// a longer straight run uploads its candidate), which bounds the work per fix: O(window).
///
/// Greedy opening windows are not optimal; `Benchmarks/reporter` compares them with the exact
/// optimum (Imai–Iri shortest path over valid shortcuts).
public struct OnlineSimplifier: Sendable, Hashable, Codable {
    /// Metres.
    public let epsilon: Double
    public let maximumWindow: Int
    public private(set) var anchor: ReportPoint?
    private var window: [ReportPoint] = []

    public init(epsilon: Double, maximumWindow: Int = 1000) {
        self.epsilon = epsilon
        self.maximumWindow = max(2, maximumWindow)
    }

    /// The newest fix not yet uploaded, if any.
    public var candidate: ReportPoint? { window.last }

    /// Feeds a fix newer than every fix before; returns the points to upload (zero or one; the very
    /// first fix is uploaded at once).
    public mutating func add(_ point: ReportPoint) -> [ReportPoint] {
        guard let anchor else {
            self.anchor = point
            return [point]
        }
        if isValid(from: anchor, to: point) {
            window.append(point)
            if window.count >= maximumWindow, let last = flush() { return [last] }
            return []
        }
        // The window broke: its candidate is the farthest the current segment reaches.
        guard let candidate = window.last else {
            window = [point]
            return []
        }
        self.anchor = candidate
        window = [point]
        return [candidate]
    }

    /// Uploads the candidate now (end of input, the freshness bound, an arrival); returns it.
    public mutating func flush() -> ReportPoint? {
        guard let candidate = window.last else { return nil }
        anchor = candidate
        window.removeAll()
        return candidate
    }

    /// Starts again from a point uploaded by someone else (an arrival or departure report).
    public mutating func restart(at point: ReportPoint) {
        anchor = point
        window.removeAll()
    }

    /// Whether anchor→point keeps every window fix within ε.
    private func isValid(from anchor: ReportPoint, to point: ReportPoint) -> Bool {
        for fix in window where SynchronizedDistance.sed(of: fix, from: anchor, to: point) > epsilon {
            return false
        }
        return true
    }
}
