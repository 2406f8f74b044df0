import CoreLocationGeodesy
import Testing

/// Geoid heights from PROJ 9 with the same grid, computed by:
///
///     echo "LON LAT 0 0" | cct -d 6 +proj=vgridshift +grids=egm96_15.gtx +multiplier=1
///
/// (Debian proj-bin + proj-data; the third output column is N). Points: named places (Gulf of Guinea,
/// New York, the Indian Ocean low, Everest, the New Guinea high), both poles, cells across the
/// antimeridian, and 13 random points (Python `random.seed(96)`). Our grid holds PROJ's values rounded
/// to whole centimetres, so bilinear interpolation of them differs from PROJ's by at most 5 mm.
struct GeoidProjTests {
    static let rows: [(latitude: Double, longitude: Double, n: Double)] = [
        (0, 0, 17.161579),
        (40.7, -74.0, -32.773621),
        (29, 78, -54.543552),
        (27.988, 86.925, -28.867667),
        (-8.5, 147.2, 84.011996),
        (4.7, 78.1, -104.908318),
        (-90, 0, -29.533850),
        (90, 0, 13.606245),
        (89.9, -179.9, 13.561019),
        (-89.87, 45.3, -29.603716),
        (10.125, 179.875, 12.702074),
        (10.125, -179.99, 12.575799),
        (-33.8688, 151.2093, 22.419706),
        (51.4779, -0.0015, 45.797547),
        (35.36, 138.73, 41.241476),
        (64.1, -21.9, 66.390031),
        (-54.8, -68.3, 13.072187),
        (-23.293024, 146.745049, 47.036206),
        (-18.715209, -105.820766, -3.041596),
        (57.203575, 93.162274, -38.277173),
        (35.690913, -172.14713, -13.257830),
        (-16.698523, -66.778437, 37.019030),
        (-44.085213, -57.941169, 5.246061),
        (-40.329213, 1.553865, 18.027754),
        (-87.972329, 27.573107, -22.931223),
        (86.590118, -5.998226, 20.964047),
        (-32.78938, 67.928904, 13.464475),
        (-27.617287, 147.015744, 31.568507),
        (68.619315, 107.67896, -15.622820),
        (2.223347, -169.823771, 14.022434),
    ]

    @Test func matchesPROJ() {
        for row in Self.rows {
            let n = EGM96Geoid.geoidHeight(latitude: row.latitude, longitude: row.longitude)
            #expect(abs(n - row.n) <= 0.005, "(\(row.latitude), \(row.longitude)): \(n) vs PROJ \(row.n)")
        }
    }

    /// The same meridian, written three ways, gives the same answer; the free function forwards.
    @Test func longitudeWraps() {
        let a = geoidHeight(latitude: 10.125, longitude: -179.99)
        #expect(a == EGM96Geoid.geoidHeight(latitude: 10.125, longitude: 180.01))
        #expect(a == EGM96Geoid.geoidHeight(latitude: 10.125, longitude: 540.01 - 360))
    }

    @Test func badInputIsNaN() {
        #expect(EGM96Geoid.isAvailable)
        #expect(geoidHeight(latitude: .nan, longitude: 0).isNaN)
        #expect(geoidHeight(latitude: 0, longitude: .infinity).isNaN)
        #expect(geoidHeight(latitude: 90.0001, longitude: 0).isNaN)
        #expect(geoidHeight(latitude: -91, longitude: 0).isNaN)
    }
}
