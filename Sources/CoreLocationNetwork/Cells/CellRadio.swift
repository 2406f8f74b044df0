/// A cell's radio technology, with the names OpenCelliD's CSV (`radio` column) and Ichnaea's geolocate API
/// (`radioType`) use.
public enum CellRadio: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case gsm = 1
    case umts = 2
    case cdma = 3
    case lte = 4
    case nr = 5

    /// OpenCelliD / Mozilla Location Service CSV spelling (`GSM`, `UMTS`, `CDMA`, `LTE`, `NR`).
    public var csvName: String {
        switch self {
        case .gsm: "GSM"
        case .umts: "UMTS"
        case .cdma: "CDMA"
        case .lte: "LTE"
        case .nr: "NR"
        }
    }

    /// Ichnaea's `radioType` (`gsm`, `wcdma`, `lte`, `nr`; CDMA has none: Ichnaea dropped it).
    public var ichnaeaName: String? {
        switch self {
        case .gsm: "gsm"
        case .umts: "wcdma"
        case .cdma: nil
        case .lte: "lte"
        case .nr: "nr"
        }
    }

    public init?(csvName: some StringProtocol) {
        switch csvName {
        case "GSM": self = .gsm
        case "UMTS": self = .umts
        case "CDMA": self = .cdma
        case "LTE": self = .lte
        case "NR": self = .nr
        default: return nil
        }
    }

    /// Whether the cell's area is a tracking area (TAC: LTE, NR) rather than a location area (LAC).
    public var usesTrackingArea: Bool { self == .lte || self == .nr }

    public var description: String { csvName }
}
