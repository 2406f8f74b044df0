import Foundation
import CoreLocationGeocoding

extension CLPlacemark {
    /// The placemark for a geocoding answer: location, region (a `CLCircularRegion` named after the place)
    /// and time zone made from the plain values.
    convenience init(place: GeocodedPlace) {
        var region: CLRegion?
        if let latitude = place.regionLatitude, let longitude = place.regionLongitude, let radius = place.regionRadius {
            region = CLCircularRegion(
                center: CLLocationCoordinate2D(latitude: latitude, longitude: longitude), radius: radius,
                identifier: place.locality ?? place.name ?? "")
        }
        self.init(
            location: CLLocation(latitude: place.latitude, longitude: place.longitude), name: place.name,
            thoroughfare: place.thoroughfare, subThoroughfare: place.subThoroughfare, locality: place.locality,
            subLocality: place.subLocality, administrativeArea: place.administrativeArea,
            subAdministrativeArea: place.subAdministrativeArea, postalCode: place.postalCode,
            isoCountryCode: place.isoCountryCode, country: place.country, inlandWater: place.inlandWater,
            ocean: place.ocean, areasOfInterest: place.areasOfInterest,
            timeZone: place.timeZone.flatMap(TimeZone.init(identifier:)), region: region,
            formattedAddressLines: place.formattedAddressLines)
    }
}
