import Foundation
import CoreLocationGeodesy
import Testing

/// Bad input gets NaN (as GeographicLib), never a trap; odd but valid input gets the right answer.
struct GeodesicBadInputTests {
    @Test("latitudes outside [-90, 90] give NaN", arguments: [90.000001, -90.5, 180, -1e300, Double.infinity])
    func latitudeOutOfRange(_ lat: Double) {
        let i = wgs84.inverse(latitude1: lat, longitude1: 0, latitude2: 10, longitude2: 10)
        #expect(i.distance.isNaN && i.azimuth1.isNaN && i.azimuth2.isNaN)
        let j = wgs84.inverse(latitude1: 10, longitude1: 10, latitude2: lat, longitude2: 0)
        #expect(j.distance.isNaN && j.azimuth1.isNaN && j.azimuth2.isNaN)
        let d = wgs84.direct(latitude1: lat, longitude1: 0, azimuth1: 30, distance: 1000)
        #expect(d.latitude.isNaN && d.longitude.isNaN && d.azimuth2.isNaN)
    }

    @Test("infinite longitudes give NaN in the inverse")
    func infiniteLongitude() {
        let r = wgs84.inverse(latitude1: 10, longitude1: .infinity, latitude2: 20, longitude2: 30)
        #expect(r.distance.isNaN && r.azimuth1.isNaN && r.azimuth2.isNaN)
    }

    @Test("longitudes are reduced exactly: +-360 k and huge values give the reduced answer")
    func longitudeReduction() {
        let base = wgs84.inverse(latitude1: 10, longitude1: 20, latitude2: -30, longitude2: 100)
        for shift in [360.0, -720, 3600, 360 * 1e12] {
            let r = wgs84.inverse(latitude1: 10, longitude1: 20 + shift, latitude2: -30, longitude2: 100 - shift)
            #expect(r == base, "shift \(shift)")
        }
        let d = wgs84.direct(latitude1: 10, longitude1: 20 + 7200, azimuth1: 45, distance: 1e6)
        let e = wgs84.direct(latitude1: 10, longitude1: 20, azimuth1: 45, distance: 1e6)
        #expect(d == e)
    }

    @Test("signed zeros and exact poles give finite, in-range results")
    func zerosAndPoles() {
        for (lat1, lon1, lat2, lon2) in [(-0.0, -0.0, 0.0, 0.0), (90, 0, -90, 0), (90, 10, 90, 20), (-90, 0, 0, 0),
                                         (0, 0, 0, 180), (0, 0, -0.0, -180)] {
            let r = wgs84.inverse(latitude1: lat1, longitude1: lon1, latitude2: lat2, longitude2: lon2)
            #expect(r.distance.isFinite && r.distance >= 0 && r.distance.sign == .plus, "\((lat1, lon1, lat2, lon2))")
            #expect(abs(r.azimuth1) <= 180 && abs(r.azimuth2) <= 180, "\((lat1, lon1, lat2, lon2))")
        }
        // Pole to pole is twice the meridian quadrant, 2 x 10 001 965.729 m for WGS84.
        let poles = wgs84.inverse(latitude1: 90, longitude1: 0, latitude2: -90, longitude2: 0)
        #expect(abs(poles.distance - 20_003_931.4586) <= 1e-4)
    }

    /// Arbitrary bit patterns (NaNs, infinities, subnormals, huge values): the call returns and every
    /// output is either NaN or in its documented range.
    @Test("fuzz: 20000 seeded arbitrary doubles never trap and stay in range")
    func fuzz() {
        var rng = SplitMix64(seed: 0x6675_7A7A)
        let special: [Double] = [0.0, -0.0, 90, -90, 180, -180, .infinity, -.infinity, .nan, .ulpOfOne, 1e-300]
        func any() -> Double {
            switch rng.next() % 4 {
            case 0: Double(bitPattern: rng.next())
            case 1: special[Int(rng.next() % UInt64(special.count))]
            default: Double.random(in: -400...400, using: &rng)
            }
        }
        for _ in 0..<20_000 {
            let (a, b, c, d) = (any(), any(), any(), any())
            let i = wgs84.inverse(latitude1: a, longitude1: b, latitude2: c, longitude2: d)
            #expect(i.distance.isNaN || (i.distance >= 0 && i.distance <= 20_003_932))
            #expect(i.azimuth1.isNaN || abs(i.azimuth1) <= 180)
            let r = wgs84.direct(latitude1: a, longitude1: b, azimuth1: c, distance: d)
            #expect(r.latitude.isNaN || abs(r.latitude) <= 90)
            #expect(r.longitude.isNaN || abs(r.longitude) <= 180)
            #expect(r.azimuth2.isNaN || abs(r.azimuth2) <= 180)
        }
    }
}
