import Foundation
import CoreLocationGeodesy

/// What `locationctl magnetic` prints, in NOAA's calculator's layout and units.
struct MagneticReport: Encodable {
    var model: String
    var latitude: Double
    var longitude: Double
    var heightKilometers: Double
    var decimalYear: Double
    var field: MagneticField

    /// WMM2025's global uncertainties (one sigma; WMM2025 technical report, table of error
    /// estimates): nT, and degrees for I; D's is √(0.26² + (5417 / H)²) degrees.
    static let uncertainty = (x: 137.0, y: 89.0, z: 141.0, h: 133.0, f: 138.0, i: 0.20)

    var declinationUncertainty: Double {
        let term = 5417 / max(field.horizontalIntensity, 1)
        return min(180, (0.26 * 0.26 + term * term).squareRoot())
    }

    var warnings: [String] {
        var out: [String] = []
        if field.isOutsideValidity {
            out.append(
                "\(String(format: "%.3f", decimalYear)) is outside \(model)'s validity (2025.0 to 2030.0); "
                    + "the values are extrapolated and may be wrong")
        }
        switch field.poleProximity {
        case .blackout:
            out.append(
                "H < 2000 nT: inside the blackout zone around the magnetic pole; compass headings are unreliable")
        case .caution:
            out.append("H < 6000 nT: near the magnetic pole; compass accuracy may be degraded")
        case .none:
            break
        }
        return out
    }

    var text: String {
        let sv = field.secularVariation
        func nT(_ name: String, _ value: Double, _ sigma: Double, _ rate: Double) -> String {
            let main = String(format: "%-4@ = %9.1f nT  +/- %5.1f nT", name, value, sigma)
            return main + String(format: "      %4@dot = %6.1f nT/yr", name, rate)
        }
        func angle(_ name: String, _ value: Double, _ sense: String, _ sigma: Double, _ rate: Double) -> String {
            let minutes = (abs(value) * 60).rounded()
            let body = String(
                format: "%-4@ = %3d° %2d' %@  +/- %4.2f°", name, Int(minutes) / 60,
                Int(minutes) % 60, sense, sigma)
            return body + String(format: "      %4@dot = %5.1f '/yr", name, rate * 60)
        }
        var lines = [
            "Model:     \(model)",
            String(format: "Latitude:  %.5f°", latitude),
            String(format: "Longitude: %.5f°", longitude),
            String(format: "Height:    %.3f km above the WGS84 ellipsoid", heightKilometers),
            String(format: "Date:      %.3f (decimal year)", decimalYear),
            "",
            String(format: "Declination D = %.2f°   Inclination I = %.2f°", field.declination, field.inclination),
            "",
            angle(
                "D", field.declination, field.declination >= 0 ? "(EAST)" : "(WEST)", declinationUncertainty,
                sv.declination),
            angle(
                "I", field.inclination, field.inclination >= 0 ? "(DOWN)" : "(UP)  ", Self.uncertainty.i,
                sv.inclination),
            nT("H", field.horizontalIntensity, Self.uncertainty.h, sv.horizontalIntensity),
            nT("X", field.north, Self.uncertainty.x, sv.north),
            nT("Y", field.east, Self.uncertainty.y, sv.east),
            nT("Z", field.down, Self.uncertainty.z, sv.down),
            nT("F", field.totalIntensity, Self.uncertainty.f, sv.totalIntensity),
        ]
        if let gv = field.gridVariation {
            lines.append(String(format: "GV   = %7.2f° (grid variation)", gv))
        }
        return lines.joined(separator: "\n")
    }

    private enum CodingKeys: String, CodingKey {
        case model, latitude, longitude, heightKilometers, decimalYear, declination, inclination
        case horizontalIntensity, north, east, down, totalIntensity, gridVariation, secularVariation
        case uncertainty, isOutsideValidity, warnings
    }

    private struct Rates: Encodable {
        var declination, inclination, horizontalIntensity, north, east, down, totalIntensity: Double
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(model, forKey: .model)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
        try c.encode(heightKilometers, forKey: .heightKilometers)
        try c.encode(decimalYear, forKey: .decimalYear)
        try c.encode(field.declination, forKey: .declination)
        try c.encode(field.inclination, forKey: .inclination)
        try c.encode(field.horizontalIntensity, forKey: .horizontalIntensity)
        try c.encode(field.north, forKey: .north)
        try c.encode(field.east, forKey: .east)
        try c.encode(field.down, forKey: .down)
        try c.encode(field.totalIntensity, forKey: .totalIntensity)
        try c.encodeIfPresent(field.gridVariation, forKey: .gridVariation)
        let sv = field.secularVariation
        try c.encode(
            Rates(
                declination: sv.declination, inclination: sv.inclination, horizontalIntensity: sv.horizontalIntensity,
                north: sv.north, east: sv.east, down: sv.down, totalIntensity: sv.totalIntensity),
            forKey: .secularVariation
        )
        let u = Self.uncertainty
        try c.encode(
            [
                "declination": declinationUncertainty, "inclination": u.i, "horizontalIntensity": u.h,
                "north": u.x, "east": u.y, "down": u.z, "totalIntensity": u.f,
            ],
            forKey: .uncertainty
        )
        try c.encode(field.isOutsideValidity, forKey: .isOutsideValidity)
        try c.encode(warnings, forKey: .warnings)
    }
}
