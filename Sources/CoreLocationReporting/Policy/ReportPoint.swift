import CoreLocationEngine
import Foundation

/// One position to report: a fix's own values, with the fix's own time.
///
/// The time is when the fix was measured, never when it is sent: a point that waited a day in the
/// queue still says where the user was, and when. Units as `Fix`: degrees (WGS84), metres, m/s,
/// degrees clockwise from true north; −1 for an unknown speed or course, a negative accuracy for an
/// invalid altitude.
public struct ReportPoint: Sendable, Hashable, Codable {
    public var latitude: Double
    public var longitude: Double
    /// Height above mean sea level, metres; meaningful only when `verticalAccuracy ≥ 0`.
    public var altitude: Double
    public var horizontalAccuracy: Double
    public var verticalAccuracy: Double
    public var speed: Double
    public var course: Double
    /// When the fix was measured.
    public var timestamp: Date

    public init(
        latitude: Double, longitude: Double, altitude: Double = 0, horizontalAccuracy: Double,
        verticalAccuracy: Double = -1, speed: Double = -1, course: Double = -1, timestamp: Date
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
    }

    public init(_ fix: Fix) {
        self.init(
            latitude: fix.latitude, longitude: fix.longitude, altitude: fix.altitude,
            horizontalAccuracy: fix.horizontalAccuracy, verticalAccuracy: fix.verticalAccuracy,
            speed: fix.speed, course: fix.course, timestamp: fix.timestamp
        )
    }

    /// Seconds since 1970 (the fix time as the wire formats carry it).
    public var time: Double { timestamp.timeIntervalSince1970 }
}

/// One upload decision of a policy.
public struct ReportDecision: Sendable, Hashable, Codable {
    public var kind: ReportKind
    /// What to upload (a fix seen earlier, or the current one).
    public var point: ReportPoint
    /// When the decision was made: the time of the fix that made it (≥ the point's own time).
    public var decidedAt: Date
    /// Why, in a few words, for `locationctl report` and the logs.
    public var reason: String

    public init(kind: ReportKind, point: ReportPoint, decidedAt: Date, reason: String) {
        self.kind = kind
        self.point = point
        self.decidedAt = decidedAt
        self.reason = reason
    }
}
