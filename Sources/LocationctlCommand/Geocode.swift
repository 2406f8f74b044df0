import ArgumentParser
import CoreLocation
import Foundation

enum PlacemarkFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Options shared by `geocode` and `reverse`.
struct GeocodeOptions: ParsableArguments {
    @Option(help: "Preferred language for names, e.g. fr, de, ru, ja (default: the user's locale).")
    var locale: String?

    @Option(help: "Output format: text, or json with every CLPlacemark field.")
    var format: PlacemarkFormat = .text

    var preferredLocale: Locale? { locale.map(Locale.init(identifier:)) }

    /// Prints the placemarks, or fails with the exit code for the CLError.
    func report(_ body: () async throws -> [CLPlacemark]) async throws {
        let placemarks: [CLPlacemark]
        do {
            placemarks = try await body()
        } catch let error as CLError {
            let message = error.errorUserInfo[NSLocalizedDescriptionKey] as? String ?? "\(error)"
            switch error.code {
            case .geocodeFoundNoResult: try fail(GeocodeFailure(message: "no place found: \(message)"), code: .failure)
            default: try fail(GeocodeFailure(message: message), code: ExitCodes.noLocation)
            }
        }
        switch format {
        case .text:
            for placemark in placemarks { print(PlacemarkText.line(placemark)) }
        case .json:
            print(try PlacemarkJSON.encode(placemarks))
        }
    }
}

struct GeocodeFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

extension LocationCtl {
    struct Geocode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "geocode",
            abstract: "Find places by name, as CLGeocoder.geocodeAddressString does.",
            discussion: """
                Answers from the embedded gazetteer (GeoNames places, Natural Earth borders), or from a \
                Nominatim-compatible server when CORELOCATION_GEOCODER_URL names one.

                Examples:
                  locationctl geocode "Springfield, Illinois"
                  locationctl geocode "Москва" --locale ru --format json
                  locationctl geocode "48.85, 2.35"

                Exit status: 0 found, 1 nothing found, 69 the geocoder is unavailable.
                """
        )

        @Argument(help: "The address or place name, in any script.")
        var text: String

        @OptionGroup var options: GeocodeOptions

        func validate() throws {
            guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw ValidationError("The text is empty.")
            }
        }

        func run() async throws {
            let text = text, locale = options.preferredLocale
            try await options.report {
                try await CLGeocoder().geocodeAddressString(text, in: nil, preferredLocale: locale)
            }
        }
    }

    struct Reverse: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "reverse",
            abstract: "Name the place at a coordinate, as CLGeocoder.reverseGeocodeLocation does.",
            discussion: """
                Examples:
                  locationctl reverse 48.8566 2.3522
                  locationctl reverse -33.8688 151.2093 --locale de
                  locationctl reverse 35.6895,139.6917 --format json

                Exit status: 0 found, 1 nothing there (open sea), 69 the geocoder is unavailable.
                """
        )

        // `.allUnrecognized` lets negative numbers through ("-33.87 151.21") instead of reading them as options.
        @Argument(parsing: .allUnrecognized, help: "Latitude and longitude in degrees: `LAT LON` or `LAT,LON`.")
        var coordinate: [String]

        @OptionGroup var options: GeocodeOptions

        /// The parsed coordinate; nil when the arguments are not one.
        var parsed: (latitude: Double, longitude: Double)? {
            let parts = coordinate.flatMap { $0.split(separator: ",") }.map {
                $0.trimmingCharacters(in: .whitespaces)
            }.filter { !$0.isEmpty }
            guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
                  latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
            return (latitude, longitude)
        }

        func validate() throws {
            guard parsed != nil else {
                throw ValidationError("Give a latitude (−90…90) and a longitude (−180…180) in degrees.")
            }
        }

        func run() async throws {
            guard let point = parsed else { throw ValidationError("Not a coordinate.") }
            let locale = options.preferredLocale
            try await options.report {
                try await CLGeocoder().reverseGeocodeLocation(
                    CLLocation(latitude: point.latitude, longitude: point.longitude), preferredLocale: locale)
            }
        }
    }
}
