import Foundation

/// Web Mercator (EPSG:3857, the projection of web maps) fitted into a canvas: the geographic box is
/// scaled to fill the canvas inside `margin` pixels on each side, keeping its aspect ratio, and
/// centred. Pixel y grows downwards, as in SVG.
///
/// World units: x = (λ + 180°) / 360°, y = (1 − ln(tan(π/4 + φ/2)) / π) / 2, both in [0, 1] for
/// |φ| ≤ 85.0511° (latitudes beyond are clamped there, as web maps do).
struct MapProjection: Sendable {
    static let maximumLatitude = 85.051_128_779_806_59
    /// WGS84 equatorial radius, metres: the sphere Web Mercator is drawn on.
    static let earthRadius = 6_378_137.0

    let width: Double
    let height: Double
    /// Pixels per world unit.
    let scale: Double
    /// World coordinates of the canvas's top-left corner.
    let originX: Double
    let originY: Double

    struct Box: Sendable {
        var south: Double
        var west: Double
        var north: Double
        var east: Double
    }

    init(fitting box: Box, width: Double, height: Double, margin: Double) {
        self.width = width
        self.height = height
        let left = Self.worldX(box.west)
        let right = Self.worldX(box.east)
        let top = Self.worldY(box.north)
        let bottom = Self.worldY(box.south)
        let spanX = max(right - left, 1e-12)
        let spanY = max(bottom - top, 1e-12)
        let scale = min((width - 2 * margin) / spanX, (height - 2 * margin) / spanY)
        self.scale = scale
        originX = (left + right) / 2 - width / 2 / scale
        originY = (top + bottom) / 2 - height / 2 / scale
    }

    static func worldX(_ longitude: Double) -> Double { (longitude + 180) / 360 }

    static func worldY(_ latitude: Double) -> Double {
        let phi = min(maximumLatitude, max(-maximumLatitude, latitude)) * .pi / 180
        return (1 - log(tan(.pi / 4 + phi / 2)) / .pi) / 2
    }

    /// Pixel position of a WGS84 coordinate.
    func point(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
        ((Self.worldX(longitude) - originX) * scale, (Self.worldY(latitude) - originY) * scale)
    }

    /// WGS84 coordinate of a pixel position.
    func coordinate(x: Double, y: Double) -> (latitude: Double, longitude: Double) {
        let worldX = x / scale + originX
        let worldY = y / scale + originY
        let latitude = atan(sinh(.pi * (1 - 2 * worldY))) * 180 / .pi
        return (latitude, worldX * 360 - 180)
    }

    /// Pixels per metre on the ground at a latitude (Mercator stretches by 1 / cos φ).
    func pixelsPerMetre(atLatitude latitude: Double) -> Double {
        let phi = min(Self.maximumLatitude, max(-Self.maximumLatitude, latitude)) * .pi / 180
        return scale / (2 * .pi * Self.earthRadius * cos(phi))
    }

    /// The geographic box the canvas shows.
    var visibleBox: Box {
        let topLeft = coordinate(x: 0, y: 0)
        let bottomRight = coordinate(x: width, y: height)
        return Box(south: bottomRight.latitude, west: topLeft.longitude, north: topLeft.latitude,
                   east: bottomRight.longitude)
    }
}
