/// Something that answers geocoding requests: the offline gazetteer or an online server.
public protocol GeocodingBackend: Sendable {
    /// Places at a coordinate (degrees). Empty when there is nothing there.
    func reverse(latitude: Double, longitude: Double, language: String?) async throws(GeocodingError)
        -> [GeocodedPlace]
    /// Places matching a query, best first. Empty when nothing matches.
    func forward(_ query: ForwardQuery, region: SearchRegion?, language: String?) async throws(GeocodingError)
        -> [GeocodedPlace]
}

/// The embedded gazetteer as a backend; loads it on first use.
public struct OfflineBackend: GeocodingBackend {
    private let load: @Sendable () throws(GeocodingError) -> Gazetteer

    /// Uses the bundled gazetteer.
    public init() {
        self.load = { () throws(GeocodingError) in try Gazetteer.bundled() }
    }

    /// Uses a given gazetteer (tests) or a loader that fails (corrupt-resource tests).
    public init(loader: @escaping @Sendable () throws(GeocodingError) -> Gazetteer) {
        self.load = loader
    }

    public func reverse(latitude: Double, longitude: Double, language: String?) async throws(GeocodingError)
        -> [GeocodedPlace]
    {
        try load().reverse(latitude: latitude, longitude: longitude, language: language).map { [$0] } ?? []
    }

    public func forward(_ query: ForwardQuery, region: SearchRegion?, language: String?) async throws(GeocodingError)
        -> [GeocodedPlace]
    {
        let text = ([query.name] + query.qualifiers).joined(separator: ", ")
        if let point = ForwardQuery.coordinate(in: text) {
            return try await reverse(latitude: point.latitude, longitude: point.longitude, language: language)
        }
        return try load().forward(query, region: region, language: language)
    }
}
