import CoreLocationGeodesy

/// Decides whether the device is standing still, for `CLLocationUpdate.isStationary`.
///
/// Rule: stationary once every fix of the last `window` seconds lies within
/// `max(radius, 2 × median accuracy)` metres of the first fix of that window, and the window is
/// full (it spans at least `window` seconds). Speed alone is not trusted: receivers report a few
/// tenths of a metre per second while parked. Any fix outside the radius ends the stay.
public struct StationaryDetector: Sendable, Hashable {
    public var window: Double
    public var radius: Double
    private var anchor: (time: Double, latitude: Double, longitude: Double, accuracy: Double)?

    public init(window: Double = 30, radius: Double = 15) {
        self.window = window
        self.radius = radius
    }

    public private(set) var isStationary = false

    /// The time since which every fix lay within the radius of the first of them; nil before any fix.
    public var stillSince: Double? { anchor?.time }

    public static func == (a: Self, b: Self) -> Bool {
        a.window == b.window && a.radius == b.radius && a.isStationary == b.isStationary
            && a.anchor?.time == b.anchor?.time
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(window)
        hasher.combine(radius)
        hasher.combine(isStationary)
    }

    /// Feeds one fix received at monotonic time `now`.
    public mutating func observe(_ fix: Fix, at now: Double) {
        guard fix.horizontalAccuracy >= 0 else { return }
        guard let anchor else {
            self.anchor = (now, fix.latitude, fix.longitude, fix.horizontalAccuracy)
            isStationary = false
            return
        }
        let allowed = max(radius, 2 * max(anchor.accuracy, fix.horizontalAccuracy))
        let isWithin = Geodesic.wgs84.isDistance(
            latitude1: anchor.latitude, longitude1: anchor.longitude, latitude2: fix.latitude, longitude2: fix.longitude,
            atMost: allowed)
        if !isWithin {
            self.anchor = (now, fix.latitude, fix.longitude, fix.horizontalAccuracy)
            isStationary = false
        } else if now - anchor.time >= window {
            isStationary = true
        }
    }
}
