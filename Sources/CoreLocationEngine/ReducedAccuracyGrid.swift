import Foundation
import CoreLocationGeodesy

/// The coarse grid behind reduced accuracy (`CLAccuracyAuthorization.reducedAccuracy`).
///
/// Latitude is cut into bands `cellSize` degrees tall; each band is cut into a whole number of
/// cells about as wide as they are tall at the band's centre, so cells stay near-square from the
/// equator to the poles. A coarsened fix is the centre of the cell holding the precise fix and
/// nothing else: every precise position in a cell maps to the same output, so the output carries
/// no information below the cell size. The reported accuracy is the largest distance from the cell
/// centre to any corner (a geodesic on WGS84), so it is honest for every point of the cell.
///
/// With the default 0.045° (≈ 5 km) the accuracy is ≈ 3.5–3.6 km — within the 1–20 km that Apple
/// documents for reduced accuracy, and coarse enough to keep the city but not the street.
public struct ReducedAccuracyGrid: Sendable, Hashable, Codable {
    /// Cell height in degrees of latitude.
    public let cellSize: Double

    public init(cellSize: Double = 0.045) {
        self.cellSize = cellSize
    }

    /// One cell of the grid.
    public struct Cell: Hashable, Sendable {
        public var band: Int
        public var column: Int
        public var centerLatitude: Double
        public var centerLongitude: Double
        public var south: Double
        public var north: Double
        public var west: Double
        public var east: Double
    }

    /// The cell that holds a valid coordinate (|lat| ≤ 90, any finite longitude); nil otherwise.
    public func cell(latitude: Double, longitude: Double) -> Cell? {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90 else { return nil }
        let bandCount = Int((180 / cellSize).rounded(.up))
        let band = min(bandCount - 1, Int(((latitude + 90) / cellSize).rounded(.down)))
        let south = -90 + Double(band) * cellSize
        let north = min(90, south + cellSize)
        let centerLatitude = (south + north) / 2
        let columns = columnCount(atLatitude: centerLatitude)
        let width = 360 / Double(columns)
        var lon = longitude.truncatingRemainder(dividingBy: 360)
        if lon < -180 { lon += 360 }
        if lon >= 180 { lon -= 360 }
        let column = min(columns - 1, Int(((lon + 180) / width).rounded(.down)))
        let west = -180 + Double(column) * width
        return Cell(
            band: band, column: column,
            centerLatitude: centerLatitude, centerLongitude: west + width / 2,
            south: south, north: north, west: west, east: west + width
        )
    }

    /// The radius that covers the whole cell from its centre, metres.
    public func coveringRadius(of cell: Cell) -> Double {
        let geodesic = Geodesic.wgs84
        var radius = 0.0
        for (lat, lon) in [(cell.south, cell.west), (cell.south, cell.east), (cell.north, cell.west), (cell.north, cell.east)] {
            let d = geodesic.inverse(
                latitude1: cell.centerLatitude, longitude1: cell.centerLongitude, latitude2: lat, longitude2: lon
            ).distance
            radius = max(radius, d)
        }
        // Round up to whole metres so the stated accuracy never undercuts the true bound.
        return radius.rounded(.up)
    }

    /// The coarse version of a fix: the cell centre, with only what the cell can tell.
    /// Altitude, speed, course and floor are withheld (marked invalid), as they would leak detail.
    public func coarsen(_ fix: Fix) -> Fix? {
        guard fix.horizontalAccuracy >= 0, let cell = cell(latitude: fix.latitude, longitude: fix.longitude) else {
            return nil
        }
        return Fix(
            latitude: cell.centerLatitude,
            longitude: cell.centerLongitude,
            altitude: 0,
            ellipsoidalAltitude: 0,
            horizontalAccuracy: max(coveringRadius(of: cell), fix.horizontalAccuracy),
            verticalAccuracy: -1,
            course: -1,
            courseAccuracy: -1,
            speed: -1,
            speedAccuracy: -1,
            timestamp: fix.timestamp,
            floor: nil,
            isSimulated: fix.isSimulated,
            isFromAccessory: fix.isFromAccessory
        )
    }

    private func columnCount(atLatitude latitude: Double) -> Int {
        let shrink = cos(latitude * .pi / 180)
        return max(1, Int((360 * shrink / cellSize).rounded(.down)))
    }
}
