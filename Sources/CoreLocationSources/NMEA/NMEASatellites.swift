/// Up to 12 satellite IDs (GSA), stored inline so decoding allocates nothing.
public struct NMEASatelliteIDs: Sendable, Hashable, RandomAccessCollection {
    public static let capacity = 12
    private var storage:
        (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    private var storedCount: UInt8 = 0

    public var count: Int { Int(storedCount) }

    public init() {}

    public init(_ ids: [UInt16]) {
        for id in ids.prefix(Self.capacity) { append(id) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> UInt16 {
        precondition(position >= 0 && position < count, "satellite index out of range")
        return withUnsafeBytes(of: storage) { $0.load(fromByteOffset: position * 2, as: UInt16.self) }
    }

    /// Appends an ID; IDs beyond the capacity are dropped (GSA has exactly 12 slots).
    mutating func append(_ id: UInt16) {
        guard count < Self.capacity else { return }
        let offset = count * 2
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: id, toByteOffset: offset, as: UInt16.self) }
        storedCount += 1
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
    public func hash(into hasher: inout Hasher) {
        for id in self { hasher.combine(id) }
    }
}

/// One satellite of a GSV sentence. Elevation degrees −90…90, azimuth degrees 0…360, SNR dB-Hz 0…99
/// (nil when not tracked). Stored in 8 bytes so that a decoded GSV stays small to copy.
public struct NMEASatelliteInView: Sendable, Hashable {
    private var storedID: UInt16
    private var storedAzimuth: Int16  // −1: absent
    private var storedElevation: Int8  // Int8.min: absent
    private var storedSNR: Int8  // −1: absent

    public var id: Int { Int(storedID) }
    public var elevation: Int? { storedElevation == .min ? nil : Int(storedElevation) }
    public var azimuth: Int? { storedAzimuth < 0 ? nil : Int(storedAzimuth) }
    public var snr: Int? { storedSNR < 0 ? nil : Int(storedSNR) }

    /// Values outside the ranges above are clamped into them.
    public init(id: Int, elevation: Int?, azimuth: Int?, snr: Int?) {
        storedID = UInt16(clamping: max(0, id))
        storedElevation = elevation.map { Int8(clamping: min(90, max(-90, $0))) } ?? .min
        storedAzimuth = azimuth.map { Int16(clamping: min(360, max(0, $0))) } ?? -1
        storedSNR = snr.map { Int8(clamping: min(99, max(0, $0))) } ?? -1
    }
}

/// Up to four satellites (one GSV sentence), stored inline.
public struct NMEASatellitesInView: Sendable, Hashable, RandomAccessCollection {
    private static let empty = NMEASatelliteInView(id: 0, elevation: nil, azimuth: nil, snr: nil)
    private var storage = (empty, empty, empty, empty)
    private var storedCount: UInt8 = 0

    public init() {}

    public var count: Int { Int(storedCount) }
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> NMEASatelliteInView {
        precondition(position >= 0 && position < count, "satellite index out of range")
        switch position {
        case 0: return storage.0
        case 1: return storage.1
        case 2: return storage.2
        default: return storage.3
        }
    }

    mutating func append(_ satellite: NMEASatelliteInView) {
        switch storedCount {
        case 0: storage.0 = satellite
        case 1: storage.1 = satellite
        case 2: storage.2 = satellite
        case 3: storage.3 = satellite
        default: return
        }
        storedCount += 1
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
    public func hash(into hasher: inout Hasher) {
        for satellite in self { hasher.combine(satellite) }
    }
}
