import CoreLocationEngine

/// GeoClue's accuracy levels (`GClueAccuracyLevel`, geoclue 2.6 `gclue-enums.h`) and what they are in Core
/// Location's terms (decision 0074).
enum GeoClueLevel: UInt32, Sendable, CaseIterable {
    case none = 0
    case country = 1
    case city = 4
    case neighborhood = 5
    case street = 6
    case exact = 8

    /// The level a client asks for as a number: an unknown number is the next level below it (GeoClue compares
    /// levels as numbers; 7 is not STREET's precision but is more than it).
    init(requested value: UInt32) {
        self = Self.allCases.last { $0.rawValue <= value } ?? .none
    }

    /// `desiredAccuracy` in metres: what the engine chooses its sources by. CITY and coarser are answered with
    /// Apple's reduced accuracy (the 5 km cell), NEIGHBORHOOD with a kilometre, STREET with a hundred metres.
    var desiredAccuracy: Double {
        switch self {
        case .none, .country, .city: 3000
        case .neighborhood: 1000
        case .street: 100
        case .exact: -1
        }
    }

    /// An app held at this level sees reduced accuracy's cell centre only.
    var isReduced: Bool { rawValue <= Self.city.rawValue }

    /// The level a Core Location decision allows: reduced accuracy is CITY, full accuracy EXACT.
    init(allowed authorization: ClientAuthorization) {
        guard authorization.allowsLocation else {
            self = .none
            return
        }
        self = authorization.accuracy == .reduced ? .city : .exact
    }
}
