import ArgumentParser
import Foundation
import CoreLocationGeodesy

extension LocationCtl {
    struct Magnetic: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "magnetic",
            abstract: "Print the Earth's magnetic field at a place and date (World Magnetic Model 2025).",
            discussion: """
                Like NOAA's calculator: declination D, inclination I, horizontal intensity H, the north, \
                east and down components X, Y, Z and total intensity F, with their yearly change and \
                WMM2025's stated uncertainty. Height is above the WGS84 ellipsoid. A date outside \
                2025.0–2030.0 or a place near a magnetic pole (H < 6000 nT) is warned about on stderr.

                Examples:
                  locationctl magnetic 48.8584 2.2945
                  locationctl magnetic -80 240 --height 100 --date 2027-07-02 --format json
                """
        )

        // Collected as unrecognised input so that negative coordinates need no `--` in front.
        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp("Geodetic latitude and longitude, degrees (e.g. -80 240).", valueName: "lat lon")
        )
        var coordinates: [String] = []

        var latitude: Double { coordinates.first.flatMap(Double.init) ?? .nan }
        var longitude: Double { coordinates.dropFirst().first.flatMap(Double.init) ?? .nan }

        @Option(
            parsing: .unconditional,
            help: ArgumentHelp("Height above the WGS84 ellipsoid, kilometres.", valueName: "km"))
        var height: Double = 0

        @Option(help: ArgumentHelp("Date (UTC), default today.", valueName: "YYYY-MM-DD"))
        var date: String?

        @Option(help: "Output format (text or json).")
        var format: OutputFormat = .text

        func validate() throws {
            guard coordinates.count == 2 else { throw ValidationError("expected LAT LON, got \(coordinates)") }
            guard latitude.isFinite, abs(latitude) <= 90 else { throw ValidationError("latitude must be in [-90, 90]") }
            guard longitude.isFinite else { throw ValidationError("longitude must be a number") }
            guard height.isFinite, MagneticModel.acceptedHeights.contains(height) else {
                throw ValidationError("--height must be between -10 and 1000 km")
            }
            guard format == .text || format == .json else { throw ValidationError("magnetic prints text or json") }
            _ = try decimalYear()
        }

        func run() throws {
            let year = try decimalYear()
            let model = MagneticModel.wmm2025
            let field: MagneticField
            do {
                field = try model.field(
                    latitude: latitude, longitude: longitude, heightKilometers: height, decimalYear: year
                )
            } catch {
                throw ValidationError(error.message)
            }
            let report = MagneticReport(
                model: model.name, latitude: latitude, longitude: longitude, heightKilometers: height,
                decimalYear: year, field: field
            )
            for warning in report.warnings { printError("warning: \(warning)") }
            if format == .json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                FileHandle.standardOutput.write(try encoder.encode(report) + Data("\n".utf8))
            } else {
                print(report.text)
            }
        }

        /// The date as NOAA's decimal year; today (UTC) by default.
        private func decimalYear() throws -> Double {
            guard let date else {
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
                let parts = calendar.dateComponents([.year, .month, .day], from: Date())
                return MagneticModel.decimalYear(year: parts.year ?? 2025, month: parts.month ?? 1, day: parts.day ?? 1)
                    ?? 2025
            }
            let fields = date.split(separator: "-", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
                let y = Int(fields[0]), let m = Int(fields[1]), let d = Int(fields[2]),
                let year = MagneticModel.decimalYear(year: y, month: m, day: d)
            else {
                throw ValidationError("--date must be a calendar date YYYY-MM-DD, got '\(date)'")
            }
            return year
        }
    }
}
