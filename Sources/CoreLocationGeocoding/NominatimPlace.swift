import Foundation

/// One result of Nominatim's `format=jsonv2&addressdetails=1` (coordinates are decimal strings).
struct NominatimPlace: Decodable {
    let lat: String
    let lon: String
    let name: String?
    let displayName: String?
    let category: String?
    let type: String?
    let boundingbox: [String]?
    let address: [String: String]?

    enum CodingKeys: String, CodingKey {
        case lat, lon, name, category, type, boundingbox, address
        case displayName = "display_name"
    }

    func geocodedPlace() throws(GeocodingError) -> GeocodedPlace {
        guard let latitude = Double(lat), let longitude = Double(lon), latitude.isFinite, longitude.isFinite,
              abs(latitude) <= 90, abs(longitude) <= 180 else {
            throw GeocodingError(.badResponse, "a Nominatim result has no valid lat/lon")
        }
        var place = GeocodedPlace(latitude: latitude, longitude: longitude)
        let address = address ?? [:]
        func first(_ keys: String...) -> String? { keys.lazy.compactMap { address[$0] }.first }
        place.thoroughfare = first("road", "pedestrian", "footway", "street")
        place.subThoroughfare = address["house_number"]
        place.locality = first("city", "town", "village", "municipality", "hamlet")
        place.subLocality = first("suburb", "city_district", "district", "quarter", "neighbourhood")
        place.administrativeArea = first("state", "province", "region")
        place.subAdministrativeArea = first("county", "state_district")
        place.postalCode = address["postcode"]
        place.isoCountryCode = address["country_code"]?.uppercased()
        place.country = address["country"]
        place.inlandWater = first("water", "lake", "river")
        place.ocean = first("ocean", "sea")
        let named = name.flatMap { $0.isEmpty ? nil : $0 }
        let street = [place.subThoroughfare, place.thoroughfare].compactMap { $0 }.joined(separator: " ")
        place.name = named ?? (street.isEmpty ? nil : street) ?? place.locality
        if let named, category != "place", category != "boundary", named != place.locality {
            place.areasOfInterest = [named]
        }
        if let box = boundingbox?.compactMap(Double.init), box.count == 4 {
            // [south, north, west, east]: the region is the circle around the box's centre reaching its corner.
            let centreLat = (box[0] + box[1]) / 2, centreLon = (box[2] + box[3]) / 2
            let halfHeight = (box[1] - box[0]) / 2 * 111_195
            let halfWidth = (box[3] - box[2]) / 2 * 111_195 * cos(centreLat * .pi / 180)
            place.regionLatitude = centreLat
            place.regionLongitude = centreLon
            place.regionRadius = max(1, (halfHeight * halfHeight + halfWidth * halfWidth).squareRoot())
        }
        if let displayName {
            place.formattedAddressLines = displayName.split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
        }
        return place
    }
}
