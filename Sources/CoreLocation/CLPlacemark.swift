import Foundation

/// A place's name and address, as a geocoder returns it.
///
/// Immutable; `@unchecked Sendable` is safe: the only stored property is a `let` of a `Sendable` struct
/// (`CLLocation` and `CLRegion` are `Sendable`; `postalAddress` and `addressDictionary` are built
/// afresh on each access).
open class CLPlacemark: NSObject, NSCopying, NSSecureCoding, @unchecked Sendable {  // Sendable: safety argued in the comment above
    struct Fields: Sendable {
        var location: CLLocation?
        var name: String?
        var thoroughfare: String?
        var subThoroughfare: String?
        var locality: String?
        var subLocality: String?
        var administrativeArea: String?
        var subAdministrativeArea: String?
        var postalCode: String?
        var isoCountryCode: String?
        var country: String?
        var inlandWater: String?
        var ocean: String?
        var areasOfInterest: [String]?
        var timeZone: TimeZone?
        var region: CLRegion?
        var formattedAddressLines: [String]?
    }

    let fields: Fields

    /// An empty placemark; for subclasses and test doubles.
    override public init() {
        self.fields = Fields()
        super.init()
    }

    /// A copy of `placemark`.
    public init(placemark: CLPlacemark) {
        self.fields = Fields(
            location: placemark.location, name: placemark.name, thoroughfare: placemark.thoroughfare,
            subThoroughfare: placemark.subThoroughfare, locality: placemark.locality,
            subLocality: placemark.subLocality, administrativeArea: placemark.administrativeArea,
            subAdministrativeArea: placemark.subAdministrativeArea, postalCode: placemark.postalCode,
            isoCountryCode: placemark.isoCountryCode, country: placemark.country,
            inlandWater: placemark.inlandWater, ocean: placemark.ocean, areasOfInterest: placemark.areasOfInterest,
            timeZone: placemark.timeZone, region: placemark.region,
            formattedAddressLines: placemark.legacyAddressDictionary?["FormattedAddressLines"] as? [String]
        )
        super.init()
    }

    /// A placemark the geocoder found. `formattedAddressLines` defaults to lines built from the fields.
    package init(
        location: CLLocation? = nil,
        name: String? = nil,
        thoroughfare: String? = nil,
        subThoroughfare: String? = nil,
        locality: String? = nil,
        subLocality: String? = nil,
        administrativeArea: String? = nil,
        subAdministrativeArea: String? = nil,
        postalCode: String? = nil,
        isoCountryCode: String? = nil,
        country: String? = nil,
        inlandWater: String? = nil,
        ocean: String? = nil,
        areasOfInterest: [String]? = nil,
        timeZone: TimeZone? = nil,
        region: CLRegion? = nil,
        formattedAddressLines: [String]? = nil
    ) {
        self.fields = Fields(
            location: location, name: name, thoroughfare: thoroughfare, subThoroughfare: subThoroughfare,
            locality: locality, subLocality: subLocality, administrativeArea: administrativeArea,
            subAdministrativeArea: subAdministrativeArea, postalCode: postalCode, isoCountryCode: isoCountryCode,
            country: country, inlandWater: inlandWater, ocean: ocean, areasOfInterest: areasOfInterest,
            timeZone: timeZone, region: region, formattedAddressLines: formattedAddressLines
        )
        super.init()
    }

    /// The place's location.
    open var location: CLLocation? { fields.location }
    /// The place's name (a building, a landmark, or the street address).
    open var name: String? { fields.name }
    /// The street name.
    open var thoroughfare: String? { fields.thoroughfare }
    /// The house number.
    open var subThoroughfare: String? { fields.subThoroughfare }
    /// The city.
    open var locality: String? { fields.locality }
    /// The neighbourhood or district.
    open var subLocality: String? { fields.subLocality }
    /// The state, province or region.
    open var administrativeArea: String? { fields.administrativeArea }
    /// The county or equivalent.
    open var subAdministrativeArea: String? { fields.subAdministrativeArea }
    open var postalCode: String? { fields.postalCode }
    /// The ISO 3166-1 alpha-2 country code.
    open var isoCountryCode: String? { fields.isoCountryCode }
    open var country: String? { fields.country }
    /// The lake, river or sea the place is on, for places on inland water.
    open var inlandWater: String? { fields.inlandWater }
    /// The ocean, for places at sea.
    open var ocean: String? { fields.ocean }
    /// Landmarks at the place.
    open var areasOfInterest: [String]? { fields.areasOfInterest }
    /// The place's time zone.
    open var timeZone: TimeZone? { fields.timeZone }
    /// The area the place covers.
    open var region: CLRegion? { fields.region }

    /// The street part of the address: house number and street name.
    var street: String? {
        let parts = [subThoroughfare, thoroughfare].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// The address, or nil when the placemark has no address field.
    open var postalAddress: CNPostalAddress? {
        let parts = [street, subLocality, locality, subAdministrativeArea, administrativeArea, postalCode,
                     country, isoCountryCode]
        guard parts.contains(where: { $0 != nil }) else { return nil }
        return CNPostalAddress(
            fields: CNPostalAddress.Fields(
                street: street ?? "", subLocality: subLocality ?? "", city: locality ?? "",
                subAdministrativeArea: subAdministrativeArea ?? "", state: administrativeArea ?? "",
                postalCode: postalCode ?? "", country: country ?? "", isoCountryCode: isoCountryCode ?? ""
            )
        )
    }

    /// The address with the legacy AddressBook keys: `Name`, `Thoroughfare`, `SubThoroughfare`, `Street`,
    /// `City`, `SubLocality`, `State`, `SubAdministrativeArea`, `ZIP`, `Country`, `CountryCode` and
    /// `FormattedAddressLines`. Absent values have no key; nil when the placemark is empty.
    @available(*, deprecated, message: "Use the properties of CLPlacemark, or postalAddress")
    open var addressDictionary: [AnyHashable: Any]? { legacyAddressDictionary }

    var legacyAddressDictionary: [AnyHashable: Any]? {
        var dictionary: [AnyHashable: Any] = [:]
        let pairs: [(String, String?)] = [
            ("Name", name), ("Thoroughfare", thoroughfare), ("SubThoroughfare", subThoroughfare),
            ("Street", street), ("City", locality), ("SubLocality", subLocality), ("State", administrativeArea),
            ("SubAdministrativeArea", subAdministrativeArea), ("ZIP", postalCode), ("Country", country),
            ("CountryCode", isoCountryCode),
        ]
        for (key, value) in pairs {
            if let value { dictionary[key] = value }
        }
        let lines = fields.formattedAddressLines ?? defaultAddressLines
        if !lines.isEmpty { dictionary["FormattedAddressLines"] = lines }
        return dictionary.isEmpty ? nil : dictionary
    }

    /// `name` (when it is not the street), street, "city state postcode", country — the common
    /// Western layout; geocoders that know better pass their own lines.
    private var defaultAddressLines: [String] {
        let cityLine = [locality, administrativeArea, postalCode].compactMap { $0 }.joined(separator: " ")
        return [name == street ? nil : name, street, cityLine.isEmpty ? nil : cityLine, country].compactMap { $0 }
    }

    /// Apple's shape: the name and address parts, then ` @ ` and the location.
    override open var description: String {
        let parts = [name, street, subLocality, locality, administrativeArea, postalCode, country]
            .compactMap { $0 }
        return parts.joined(separator: ", ") + (location.map { " @ \($0.description)" } ?? "")
    }

    /// The placemark itself: it is immutable.
    open func copy(with zone: NSZone? = nil) -> Any { self }

    public static var supportsSecureCoding: Bool { true }

    open func encode(with coder: NSCoder) {
        fields.encode(with: coder)
    }

    public required init?(coder: NSCoder) {
        self.fields = Fields(decodingWith: coder)
        super.init()
    }
}
