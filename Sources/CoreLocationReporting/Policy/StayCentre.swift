/// Where a settled user is, as the mean of the fixes seen there: the bounded policy measures leaving
/// from it rather than from the arrival report's fix, which can lie at the edge of the place (a slow
/// walk settles wherever the detector happened to decide, and noise of 10 m puts any single fix 10 m
/// off).
///
/// The mean weights each fix by the seconds it stands for (since the previous fix, 1 s to
/// `maximumWeight`), as the visits detector does: a sparse logger's fix after a long silence counts for
/// the time it covers, a burst of 1 Hz fixes for no more than its seconds. Offsets are taken in degrees
/// from the seed (longitude wrapped), so the place may straddle the antimeridian.
struct StayCentre: Sendable, Hashable {
    /// Seconds one fix may stand for at most: a receiver silent for hours says little of the place.
    static let maximumWeight = 300.0

    private let seedLatitude: Double
    private let seedLongitude: Double
    private var sumLatitude = 0.0
    private var sumLongitude = 0.0
    private var weight = 0.0
    private var lastTime: Double

    /// - Parameters:
    ///   - weight: the seconds the seed stands for (the evidence that settled the user).
    init(latitude: Double, longitude: Double, time: Double, weight: Double) {
        seedLatitude = latitude
        seedLongitude = longitude
        lastTime = time
        self.weight = max(weight, 1)
    }

    /// Seeded with one fix standing for `weight` seconds.
    init(seed point: ReportPoint, weight: Double) {
        self.init(latitude: point.latitude, longitude: point.longitude, time: point.time, weight: weight)
    }

    /// The mean of `points` (oldest first), each weighted by the seconds it stands for; nil if none.
    init?(_ points: [ReportPoint]) {
        guard let first = points.first else { return nil }
        self.init(latitude: first.latitude, longitude: first.longitude, time: first.time, weight: 1)
        for point in points.dropFirst() { add(point) }
    }

    var latitude: Double { seedLatitude + sumLatitude / weight }

    var longitude: Double {
        let longitude = seedLongitude + sumLongitude / weight
        if longitude > 180 { return longitude - 360 }
        return longitude < -180 ? longitude + 360 : longitude
    }

    mutating func add(_ point: ReportPoint) {
        let w = min(max(point.time - lastTime, 1), Self.maximumWeight)
        lastTime = max(lastTime, point.time)
        var dLon = point.longitude - seedLongitude
        if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
        sumLatitude += w * (point.latitude - seedLatitude)
        sumLongitude += w * dLon
        weight += w
    }

    /// Metres from the centre to `point` (the policy's plane distance).
    func distance(to point: ReportPoint) -> Double {
        SynchronizedDistance.distance(
            latitude1: latitude, longitude1: longitude, latitude2: point.latitude, longitude2: point.longitude)
    }
}
