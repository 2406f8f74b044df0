extension GeocodedPlace {
    /// The fields a reverse look-up of the gazetteer sets (`Gazetteer.place(for:…)`), the others nil. An initialiser
    /// builds the value where it is returned: a local `var` returned at the end was copied (every string retained)
    /// and then destroyed.
    init(
        latitude: Double, longitude: Double, name: String?, locality: String?, subLocality: String?,
        administrativeArea: String?, subAdministrativeArea: String?, isoCountryCode: String?, country: String?,
        timeZone: String?, region: (latitude: Double, longitude: Double, radius: Double)?
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.name = name
        self.thoroughfare = nil
        self.subThoroughfare = nil
        self.postalCode = nil
        self.inlandWater = nil
        self.ocean = nil
        self.areasOfInterest = nil
        self.formattedAddressLines = nil
        self.locality = locality
        self.subLocality = subLocality
        self.administrativeArea = administrativeArea
        self.subAdministrativeArea = subAdministrativeArea
        self.isoCountryCode = isoCountryCode
        self.country = country
        self.timeZone = timeZone
        self.regionLatitude = region?.latitude
        self.regionLongitude = region?.longitude
        self.regionRadius = region?.radius
    }
}
