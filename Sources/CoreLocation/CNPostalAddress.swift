import Foundation
import Synchronization

/// A postal address, as in Apple's Contacts framework (which does not exist on Linux); what
/// `CLPlacemark.postalAddress` returns and `CLGeocoder.geocodePostalAddress` takes.
///
/// Every property is a string, empty when unknown. Equal when every property is. `@unchecked Sendable` is
/// safe: the values live in a `Mutex` (the mutable subclass writes them), so access is serialized.
open class CNPostalAddress: NSObject, NSCopying, NSMutableCopying, NSSecureCoding, @unchecked Sendable {  // Sendable: safety argued in the comment above
    struct Fields: Sendable, Hashable {
        var street = ""
        var subLocality = ""
        var city = ""
        var subAdministrativeArea = ""
        var state = ""
        var postalCode = ""
        var country = ""
        var isoCountryCode = ""
    }

    let storage: Mutex<Fields>

    /// An empty address.
    override public init() {
        self.storage = Mutex(Fields())
        super.init()
    }

    init(fields: Fields) {
        self.storage = Mutex(fields)
        super.init()
    }

    var fields: Fields { storage.withLock { $0 } }

    /// The street name and number, possibly several lines separated by newlines.
    open var street: String { fields.street }
    /// The neighbourhood or district.
    open var subLocality: String { fields.subLocality }
    open var city: String { fields.city }
    /// The county or equivalent.
    open var subAdministrativeArea: String { fields.subAdministrativeArea }
    /// The state, province or region.
    open var state: String { fields.state }
    open var postalCode: String { fields.postalCode }
    open var country: String { fields.country }
    /// The ISO 3166-1 alpha-2 country code.
    open var isoCountryCode: String { fields.isoCountryCode }

    override open func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CNPostalAddress else { return false }
        return other.fields == fields
    }

    override open var hash: Int { fields.hashValue }

    /// An immutable copy.
    open func copy(with zone: NSZone? = nil) -> Any { CNPostalAddress(fields: fields) }

    /// A mutable copy.
    open func mutableCopy(with zone: NSZone? = nil) -> Any { CNMutablePostalAddress(fields: fields) }

    public static var supportsSecureCoding: Bool { true }

    private static var keys: [(String, WritableKeyPath<Fields, String>)] {
        [
            ("street", \.street), ("subLocality", \.subLocality), ("city", \.city),
            ("subAdministrativeArea", \.subAdministrativeArea), ("state", \.state), ("postalCode", \.postalCode),
            ("country", \.country), ("ISOCountryCode", \.isoCountryCode),
        ]
    }

    open func encode(with coder: NSCoder) {
        let fields = fields
        for (key, path) in Self.keys {
            coder.encode(fields[keyPath: path] as NSString, forKey: key)
        }
    }

    public required init?(coder: NSCoder) {
        var fields = Fields()
        for (key, path) in Self.keys {
            if let value = coder.decodeStringIfPresent(forKey: key) {
                fields[keyPath: path] = value
            }
        }
        self.storage = Mutex(fields)
        super.init()
    }
}

/// A postal address whose properties can be set.
open class CNMutablePostalAddress: CNPostalAddress, @unchecked Sendable {  // Sendable: safety argued in the comment above
    override open var street: String {
        get { fields.street }
        set { storage.withLock { $0.street = newValue } }
    }
    override open var subLocality: String {
        get { fields.subLocality }
        set { storage.withLock { $0.subLocality = newValue } }
    }
    override open var city: String {
        get { fields.city }
        set { storage.withLock { $0.city = newValue } }
    }
    override open var subAdministrativeArea: String {
        get { fields.subAdministrativeArea }
        set { storage.withLock { $0.subAdministrativeArea = newValue } }
    }
    override open var state: String {
        get { fields.state }
        set { storage.withLock { $0.state = newValue } }
    }
    override open var postalCode: String {
        get { fields.postalCode }
        set { storage.withLock { $0.postalCode = newValue } }
    }
    override open var country: String {
        get { fields.country }
        set { storage.withLock { $0.country = newValue } }
    }
    override open var isoCountryCode: String {
        get { fields.isoCountryCode }
        set { storage.withLock { $0.isoCountryCode = newValue } }
    }
}
