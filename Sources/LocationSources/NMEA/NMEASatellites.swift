/// Up to 12 satellite IDs (GSA), stored inline so decoding allocates nothing.
public struct NMEASatelliteIDs: Sendable, Hashable, RandomAccessCollection {
    public static let capacity = 12
    private var storage: (UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16, UInt16) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
    public private(set) var count = 0

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
        withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: id, toByteOffset: count * 2, as: UInt16.self) }
        count += 1
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.elementsEqual(rhs) }
    public func hash(into hasher: inout Hasher) {
        for id in self { hasher.combine(id) }
    }
}

/// One satellite of a GSV sentence. Elevation degrees 0…90, azimuth degrees 0…359, SNR dB-Hz 0…99
/// (nil when not tracked).
public struct NMEASatelliteInView: Sendable, Hashable {
    public var id: Int
    public var elevation: Int?
    public var azimuth: Int?
    public var snr: Int?

    public init(id: Int, elevation: Int?, azimuth: Int?, snr: Int?) {
        self.id = id
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
    }
}

/// Up to four satellites (one GSV sentence), stored inline.
public struct NMEASatellitesInView: Sendable, Hashable, RandomAccessCollection {
    private var s0: NMEASatelliteInView?
    private var s1: NMEASatelliteInView?
    private var s2: NMEASatelliteInView?
    private var s3: NMEASatelliteInView?
    public private(set) var count = 0

    public init() {}

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    public subscript(position: Int) -> NMEASatelliteInView {
        let element: NMEASatelliteInView? =
            switch position {
            case 0: s0
            case 1: s1
            case 2: s2
            case 3: s3
            default: nil
            }
        guard let element, position < count else { preconditionFailure("satellite index out of range") }
        return element
    }

    mutating func append(_ satellite: NMEASatelliteInView) {
        switch count {
        case 0: s0 = satellite
        case 1: s1 = satellite
        case 2: s2 = satellite
        case 3: s3 = satellite
        default: return
        }
        count += 1
    }
}
