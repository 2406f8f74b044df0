import Foundation
import CoreLocationGeodesy
import Testing

struct WMMBehaviourTests {
    let model = MagneticModel.wmm2025

    @Test func badInputThrowsACodedError() {
        let cases: [(Double, Double, Double, Double, MagneticModelError.Code)] = [
            (.nan, 0, 0, 2026, .invalidCoordinate),
            (90.5, 0, 0, 2026, .invalidCoordinate),
            (-91, 0, 0, 2026, .invalidCoordinate),
            (0, .infinity, 0, 2026, .invalidCoordinate),
            (0, 0, .nan, 2026, .invalidHeight),
            (0, 0, 5000, 2026, .invalidHeight),
            (0, 0, -20, 2026, .invalidHeight),
            (0, 0, 0, .nan, .invalidDate),
            (0, 0, 0, 1900, .invalidDate),
            (0, 0, 0, -.infinity, .invalidDate),
        ]
        for (lat, lon, h, t, code) in cases {
            #expect {
                try model.field(latitude: lat, longitude: lon, heightKilometers: h, decimalYear: t)
            } throws: { error in
                (error as? MagneticModelError)?.code == code
            }
        }
    }

    /// 2024.5 and 2031 are extrapolations: answered, but flagged; 2029.99 is still inside.
    @Test func datesOutsideValidityAreFlagged() throws {
        #expect(
            try model.field(latitude: 10, longitude: 10, heightKilometers: 0, decimalYear: 2024.5).isOutsideValidity)
        #expect(try model.field(latitude: 10, longitude: 10, heightKilometers: 0, decimalYear: 2031).isOutsideValidity)
        #expect(
            try !model.field(latitude: 10, longitude: 10, heightKilometers: 0, decimalYear: 2029.99).isOutsideValidity)
    }

    /// Longitudes are reduced modulo 360: 240° and −120° are the same meridian.
    @Test func longitudeIsPeriodic() throws {
        let a = try model.field(latitude: -80, longitude: 240, heightKilometers: 0, decimalYear: 2025)
        let b = try model.field(latitude: -80, longitude: -120, heightKilometers: 0, decimalYear: 2025)
        let c = try model.field(latitude: -80, longitude: 600, heightKilometers: 0, decimalYear: 2025)
        #expect(abs(a.declination - b.declination) < 1e-9)
        #expect(abs(a.declination - c.declination) < 1e-9)
    }

    /// Exactly at a geographic pole cos φ = 0 and NOAA sums the east component specially; the result
    /// must be finite and continuous with a point 1e-7° away on the same meridian (within the field's
    /// change over ~1 cm, far below 0.01 nT).
    @Test(arguments: [90.0, -90.0])
    func poleIsContinuous(latitude: Double) throws {
        let pole = try model.field(latitude: latitude, longitude: 30, heightKilometers: 0, decimalYear: 2026)
        let near = try model.field(
            latitude: latitude > 0 ? latitude - 1e-7 : latitude + 1e-7, longitude: 30, heightKilometers: 0,
            decimalYear: 2026
        )
        #expect(pole.north.isFinite && pole.east.isFinite && pole.down.isFinite)
        #expect(abs(pole.north - near.north) < 0.01)
        #expect(abs(pole.east - near.east) < 0.01)
        #expect(abs(pole.down - near.down) < 0.01)
    }

    /// NOAA: GV = D − λ north of 55°N, D + λ south of 55°S, none in between.
    @Test func gridVariation() throws {
        let north = try model.field(latitude: 80, longitude: 100, heightKilometers: 0, decimalYear: 2026)
        let gv = try #require(north.gridVariation)
        #expect(abs(remainder(gv - (north.declination - 100), 360)) < 1e-9)
        #expect((-180...180).contains(gv))
        let south = try model.field(latitude: -70, longitude: 100, heightKilometers: 0, decimalYear: 2026)
        #expect(abs(remainder(try #require(south.gridVariation) - (south.declination + 100), 360)) < 1e-9)
        #expect(
            try model.field(latitude: 40, longitude: 100, heightKilometers: 0, decimalYear: 2026).gridVariation == nil)
    }

    /// NOAA's blackout (H < 2000 nT) and caution (H < 6000 nT) zones around the north magnetic pole;
    /// (86.5, 150) is inside the blackout zone per NOAA's calculator (which warns there).
    @Test func poleProximity() throws {
        #expect(
            try model.field(latitude: 86.5, longitude: 150, heightKilometers: 0, decimalYear: 2027).poleProximity
                == .blackout)
        #expect(
            try model.field(latitude: 45, longitude: -75, heightKilometers: 0, decimalYear: 2026).poleProximity == .none
        )
    }

    /// NOAA's day-of-year convention: 2025-01-01 = 2025.0, 2027-07-02 = 2027.5 (day 183 of 365),
    /// 2028-12-31 = 2028 + 365/366.
    @Test func decimalYear() {
        #expect(MagneticModel.decimalYear(year: 2025, month: 1, day: 1) == 2025.0)
        #expect(MagneticModel.decimalYear(year: 2027, month: 7, day: 2) == 2027 + 182.0 / 365)
        #expect(MagneticModel.decimalYear(year: 2028, month: 12, day: 31) == 2028 + 365.0 / 366)
        #expect(MagneticModel.decimalYear(year: 2027, month: 2, day: 29) == nil)
        #expect(MagneticModel.decimalYear(year: 2027, month: 13, day: 1) == nil)
    }
}
