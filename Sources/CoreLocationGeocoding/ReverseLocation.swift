/// What a reverse look-up found, as indices: the look-up's result before any string is copied into a
/// `GeocodedPlace` (`Gazetteer.locate`, then `Gazetteer.place(for:…)`). A batch finds these in the cache-friendly
/// order of its points and builds the answers afterwards, in input order (`Gazetteer.reverse(_:)`).
struct ReverseLocation: Sendable {
    /// The Natural Earth feature containing the point (or, near a coast, of the nearest place's code); -1: none.
    var countryIndex: Int32
    /// String index of the ISO country code; 0: none.
    var code: Int32
    /// Place indices; -1: none.
    var locality: Int32 = -1
    var district: Int32 = -1
    /// Without a locality, the nearest place of the country (its time zone); -1: none.
    var anchor: Int32 = -1
    /// Whether the anchor is near enough (`Gazetteer.adminAreaReach`) to give the administrative areas.
    var anchorGivesAdminAreas = false
    /// The anchor's slot in the country's place tree, when the tree found it (a batch seeds the next search with it).
    var anchorSlot: Int32 = -1
}
