import CoreLocationNetwork

/// One row of a cell table: where a cell is, as OpenCelliD (or a Mozilla Location Service dump) estimated it.
public struct CellRecord: Sendable, Hashable {
    public var radio: CellRadio
    public var mcc: Int
    public var mnc: Int
    /// LAC (GSM, UMTS), TAC (LTE, NR); OpenCelliD's `area`.
    public var area: Int
    public var cellID: Int
    public var latitude: Double
    public var longitude: Double
    /// The table's estimate of the cell's coverage radius, metres (0: unknown).
    public var range: Int
    public var samples: Int
    /// Seconds since 1970 (0: unknown).
    public var updated: Int

    public init(
        radio: CellRadio, mcc: Int, mnc: Int, area: Int, cellID: Int, latitude: Double, longitude: Double,
        range: Int, samples: Int, updated: Int
    ) {
        self.radio = radio
        self.mcc = mcc
        self.mnc = mnc
        self.area = area
        self.cellID = cellID
        self.latitude = latitude
        self.longitude = longitude
        self.range = range
        self.samples = samples
        self.updated = updated
    }
}

/// Where a cell table puts a serving cell.
public struct CellLocation: Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Metres: the cell's range within `CellAccuracy`'s bounds.
    public var horizontalAccuracy: Double
    public var radio: CellRadio
    public var samples: Int
}

/// The horizontal accuracy given to a cell position (docs/decisions/0034).
///
/// The table's `range` (the radius that holds the cell's measurements) clamped to 1 km … 50 km; a cell with no
/// range (0, or a single sample) gets 10 km. The floor: a handset is rarely within a few hundred metres of the
/// antenna it uses, and OpenCelliD's ranges from few samples are too small; the ceiling: rural GSM cells reach
/// ~35 km (the timing-advance limit), a range beyond 50 km is a bad estimate. The same bounds as Ichnaea's
/// (`CELL_MIN_ACCURACY`, `CELL_MAX_ACCURACY` in ichnaea/api/locate/constants.py, 1 km and 100 km there).
public enum CellAccuracy {
    public static let minimum: Double = 1_000
    public static let maximum: Double = 50_000
    public static let unknownRange: Double = 10_000

    public static func accuracy(range: Int, samples: Int) -> Double {
        guard range > 0, samples > 1 else { return unknownRange }
        return min(max(Double(range), minimum), maximum)
    }
}
