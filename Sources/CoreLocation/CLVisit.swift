import Foundation
import CoreLocationEngine

/// A stay at one place: where, how precisely, and from when to when.
///
/// An arrival-only visit has `departureDate == .distantFuture`; a visit whose arrival is unknown has
/// `arrivalDate == .distantPast` (as Apple documents).
///
/// Immutable. `@unchecked Sendable` is safe: the stored properties are `let`s of `Sendable` types.
open class CLVisit: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {  // Sendable: safety argued in the comment above
    private let arrival: Date
    private let departure: Date
    private let place: CLLocationCoordinate2D
    private let accuracy: CLLocationAccuracy

    /// An empty visit: unknown arrival and departure, invalid coordinate and accuracy. For test doubles.
    override public init() {
        self.arrival = .distantPast
        self.departure = .distantFuture
        self.place = kCLLocationCoordinate2DInvalid
        self.accuracy = -1
        super.init()
    }

    /// A visit detected by the engine.
    package init(
        arrivalDate: Date,
        departureDate: Date,
        coordinate: CLLocationCoordinate2D,
        horizontalAccuracy: CLLocationAccuracy
    ) {
        self.arrival = arrivalDate
        self.departure = departureDate
        self.place = coordinate
        self.accuracy = horizontalAccuracy
        super.init()
    }

    /// A visit the engine decided: unknown dates become `.distantPast` / `.distantFuture`.
    package convenience init(_ visit: Visit) {
        self.init(
            arrivalDate: visit.arrival ?? .distantPast,
            departureDate: visit.departure ?? .distantFuture,
            coordinate: CLLocationCoordinate2D(latitude: visit.latitude, longitude: visit.longitude),
            horizontalAccuracy: visit.horizontalAccuracy
        )
    }

    /// When the user arrived; `.distantPast` when unknown.
    open var arrivalDate: Date { arrival }
    /// When the user left; `.distantFuture` while the visit goes on.
    open var departureDate: Date { departure }
    /// The centre of the visit, degrees (WGS84).
    open var coordinate: CLLocationCoordinate2D { place }
    /// Radius of uncertainty of `coordinate`, metres.
    open var horizontalAccuracy: CLLocationAccuracy { accuracy }

    override open var description: String {
        String(format: "<CLVisit <%+.8f,%+.8f> +/- %.2fm", coordinate.latitude, coordinate.longitude,
               horizontalAccuracy)
            + " arrival \(arrivalDate) departure \(departureDate)>"
    }

    /// The visit itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        coder.encode(arrivalDate.timeIntervalSinceReferenceDate, forKey: "arrivalDate")
        coder.encode(departureDate.timeIntervalSinceReferenceDate, forKey: "departureDate")
        coder.encode(coordinate.latitude, forKey: "latitude")
        coder.encode(coordinate.longitude, forKey: "longitude")
        coder.encode(horizontalAccuracy, forKey: "horizontalAccuracy")
    }

    public required init?(coder: NSCoder) {
        self.arrival = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "arrivalDate"))
        self.departure = Date(timeIntervalSinceReferenceDate: coder.decodeDouble(forKey: "departureDate"))
        self.place = CLLocationCoordinate2D(
            latitude: coder.decodeDouble(forKey: "latitude"), longitude: coder.decodeDouble(forKey: "longitude")
        )
        self.accuracy = coder.decodeDouble(forKey: "horizontalAccuracy")
        super.init()
    }
}
