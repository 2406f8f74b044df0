import Foundation
import CoreLocationGeodesy

/// A circle on the WGS84 ellipsoid: a centre and a radius in metres.
///
/// Equal to any region with the same identifier (see `CLRegion`). `@unchecked Sendable` as `CLRegion`:
/// `center` and `radius` are `let`s.
open class CLCircularRegion: CLRegion, @unchecked Sendable {  // Sendable: safety argued in the comment above
    private let storedCenter: CLLocationCoordinate2D
    private let storedRadius: CLLocationDistance

    /// A region around `center`, `radius` metres wide, named `identifier`.
    public init(center: CLLocationCoordinate2D, radius: CLLocationDistance, identifier: String) {
        self.storedCenter = center
        self.storedRadius = radius
        super.init(identifier: identifier)
    }

    /// An empty region: invalid centre, radius 0, empty identifier. For subclasses and test doubles.
    override public init() {
        self.storedCenter = kCLLocationCoordinate2DInvalid
        self.storedRadius = 0
        super.init(identifier: "")
    }

    /// The centre, degrees (WGS84).
    open var center: CLLocationCoordinate2D { storedCenter }
    /// The radius, metres.
    open var radius: CLLocationDistance { storedRadius }

    /// Whether `coordinate` lies in the circle: its geodesic distance from the centre on the WGS84
    /// ellipsoid (`Geodesic.wgs84.inverse`, sub-millimetre accurate) is at most `radius`, boundary
    /// included. An invalid coordinate, centre or radius (NaN, out of range) gives false.
    open func contains(_ coordinate: CLLocationCoordinate2D) -> Bool {
        let center = center, radius = radius
        guard CLLocationCoordinate2DIsValid(coordinate), CLLocationCoordinate2DIsValid(center),
            radius >= 0
        else { return false }
        let distance = Geodesic.wgs84.inverse(
            latitude1: center.latitude, longitude1: center.longitude,
            latitude2: coordinate.latitude, longitude2: coordinate.longitude
        ).distance
        return distance <= radius
    }

    override open var description: String {
        "CLCircularRegion (identifier:'\(identifier)', "
            + String(format: "center:<%+.8f,%+.8f>, radius:%.2fm)", center.latitude, center.longitude, radius)
    }

    /// A new region with the same identifier, centre, radius and notification flags.
    override open func copy(with zone: NSZone? = nil) -> Any {
        let copy = CLCircularRegion(center: center, radius: radius, identifier: identifier)
        copy.copyFlags(from: self)
        return copy
    }

    override open func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(center.latitude, forKey: "centerLatitude")
        coder.encode(center.longitude, forKey: "centerLongitude")
        coder.encode(radius, forKey: "radius")
    }

    public required init?(coder: NSCoder) {
        self.storedCenter = CLLocationCoordinate2D(
            latitude: coder.decodeDouble(forKey: "centerLatitude"),
            longitude: coder.decodeDouble(forKey: "centerLongitude")
        )
        self.storedRadius = coder.decodeDouble(forKey: "radius")
        super.init(coder: coder)
    }
}
