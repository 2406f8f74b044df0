import Foundation

/// A parsed forward-geocoding request: a place name and qualifiers (state, county, country), or a coordinate.
public struct ForwardQuery: Sendable, Hashable {
    /// The most specific part (a city), as typed.
    public var name: String
    /// Less specific parts (state, county, country code or name), as typed, most specific first.
    public var qualifiers: [String]

    public init(name: String, qualifiers: [String] = []) {
        self.name = name
        self.qualifiers = qualifiers
    }

    /// Longest free-text query accepted, in characters; longer ones are refused as `.invalidInput`.
    public static let maximumLength = 1_000

    /// Splits free text at commas: "Springfield, Illinois" → name "Springfield", qualifier "Illinois".
    public init(text: String) throws(GeocodingError) {
        guard text.count <= Self.maximumLength else {
            throw GeocodingError(.invalidInput, "the address is longer than \(Self.maximumLength) characters")
        }
        let parts = text.split(whereSeparator: { $0 == "," || $0 == "，" || $0 == "、" || $0 == "\n" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        guard let first = parts.first else {
            throw GeocodingError(.invalidInput, "the address is empty")
        }
        self.init(name: first, qualifiers: Array(parts.dropFirst()))
    }

    /// A coordinate typed as "48.85, 2.35" or "48.85 2.35" (degrees, latitude first), if the text is one.
    public static func coordinate(in text: String) -> (latitude: Double, longitude: Double)? {
        let parts = text.split(whereSeparator: { $0 == "," || $0 == " " || $0 == ";" }).filter { !$0.isEmpty }
        guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
              latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180 else { return nil }
        return (latitude, longitude)
    }
}

