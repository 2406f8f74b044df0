import CoreLocationEngine
import Foundation

/// The satellites a GNSS receiver reported with its latest epoch, numbered and weighed as gpsd 3.22 does, so that
/// locationd's gpsd front door can write the `SKY` a gpsd client expects (decision 0089). The engine's `Fix` carries
/// no satellites (Apple's `CLLocation` has none either): this is read from the source beside it.
public struct SatelliteView: Sendable, Hashable {
    public struct Satellite: Sendable, Hashable {
        /// gpsd's number: GPS 1–32, SBAS as NMEA numbers it (33–64), GLONASS 65–96, Galileo 301–336, BeiDou 401–463,
        /// QZSS 193–202.
        public var prn: Int
        /// u-blox's GNSS id, as gpsd writes it: 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 5 QZSS, 6 GLONASS.
        public var gnssID: Int
        /// The satellite's number within its system (SBAS: its PRN, 120–158).
        public var svID: Int
        /// Degrees above the horizon; nil when the receiver did not say.
        public var elevation: Double?
        /// Degrees from true north; nil when the receiver did not say.
        public var azimuth: Double?
        /// Signal-to-noise ratio, dB-Hz; nil when not tracked.
        public var snr: Double?
        /// In the solution (listed by the epoch's GSA).
        public var used: Bool

        public init(
            prn: Int, gnssID: Int, svID: Int, elevation: Double?, azimuth: Double?, snr: Double?, used: Bool
        ) {
            self.prn = prn
            self.gnssID = gnssID
            self.svID = svID
            self.elevation = elevation
            self.azimuth = azimuth
            self.snr = snr
            self.used = used
        }

        /// A satellite of an NMEA GSV, numbered as gpsd 3.22 numbers it from the sentence's talker and number (checked
        /// against gpsd 3.22's `SKY` for GP, GL, GA, GB and BD talkers, `SatelliteViewTests`). NMEA 4.10's system ids
        /// are not used: gpsd numbers by talker and range alike. Nil for a number no system has (0).
        public init?(talker: NMEATalker, nmeaID id: Int, elevation: Int?, azimuth: Int?, snr: Int?, used: Bool) {
            guard id > 0 else { return nil }
            let (prn, gnssID, svID): (Int, Int, Int)
            switch talker.system {
            case .galileo: (prn, gnssID, svID) = (300 + id, 2, id)
            case .beidou: (prn, gnssID, svID) = (400 + id, 3, id)
            case .qzss: (prn, gnssID, svID) = (id >= 193 ? id : 192 + id, 5, id >= 193 ? id - 192 : id)
            case .glonass: (prn, gnssID, svID) = (id < 65 ? 64 + id : id, 6, id < 65 ? id : id - 64)
            default:
                switch id {
                case 33...64: (prn, gnssID, svID) = (id, 1, id + 87)
                case 65...96: (prn, gnssID, svID) = (id, 6, id - 64)
                case 120...158: (prn, gnssID, svID) = (id, 1, id)
                case 193...202: (prn, gnssID, svID) = (id, 5, id - 192)
                default: (prn, gnssID, svID) = (id, 0, id)
                }
            }
            self.init(
                prn: prn, gnssID: gnssID, svID: svID, elevation: elevation.map(Double.init),
                azimuth: azimuth.map(Double.init), snr: snr.map(Double.init), used: used)
        }

        /// A satellite of gpsd's own `SKY` (locationd reading gpsd): its numbers as gpsd gave them; a satellite
        /// without a PRN is nil.
        public init?(_ satellite: GPSDSky.Satellite) {
            guard let prn = satellite.PRN else { return nil }
            self.init(
                prn: prn, gnssID: satellite.gnssid ?? 0, svID: satellite.svid ?? prn, elevation: satellite.el,
                azimuth: satellite.az, snr: satellite.ss, used: satellite.used ?? false)
        }
    }

    /// The dilutions of precision: the receiver's where it said them (GSA's PDOP, HDOP, VDOP), the rest from the
    /// geometry of the used satellites, as gpsd fills what its receiver leaves out.
    public struct DilutionOfPrecision: Sendable, Hashable {
        public var x: Double?
        public var y: Double?
        public var vertical: Double?
        public var time: Double?
        public var horizontal: Double?
        public var geometric: Double?
        public var position: Double?
    }

    /// The time of the fix this view came with: the front door writes it after that fix's `TPV`.
    public var fixTime: Date?
    /// In the order the receiver listed them.
    public var satellites: [Satellite]
    public var reportedPDOP: Double?
    public var reportedHDOP: Double?
    public var reportedVDOP: Double?

    public init(
        fixTime: Date?, satellites: [Satellite], reportedPDOP: Double? = nil, reportedHDOP: Double? = nil,
        reportedVDOP: Double? = nil
    ) {
        self.fixTime = fixTime
        self.satellites = satellites
        self.reportedPDOP = reportedPDOP
        self.reportedHDOP = reportedHDOP
        self.reportedVDOP = reportedVDOP
    }

    /// The view gpsd's `SKY` gave, for the fix timed `fixTime`.
    public init(_ sky: GPSDSky, fixTime: Date?) {
        self.init(
            fixTime: fixTime, satellites: (sky.satellites ?? []).compactMap(Satellite.init), reportedPDOP: sky.pdop,
            reportedHDOP: sky.hdop, reportedVDOP: sky.vdop)
    }

    /// The view of an NMEA receiver's latest epoch.
    public init(_ status: NMEAReceiverStatus) {
        self.init(
            fixTime: status.lastFix,
            satellites: status.satellites.compactMap {
                Satellite(
                    talker: $0.talker, nmeaID: $0.id, elevation: $0.elevation, azimuth: $0.azimuth, snr: $0.snr,
                    used: $0.used)
            },
            reportedPDOP: status.pdop, reportedHDOP: status.hdop, reportedVDOP: status.vdop)
    }

    /// The receiver's dilutions, the missing ones computed from the used satellites' directions: with G the rows
    /// (cos e sin a, cos e cos a, sin e, 1) and Q = (GᵀG)⁻¹, xdop = √Q₁₁, ydop = √Q₂₂, vdop = √Q₃₃, tdop = √Q₄₄,
    /// hdop = √(Q₁₁ + Q₂₂), pdop = √(Q₁₁ + Q₂₂ + Q₃₃), gdop = √tr Q. Fewer than four used satellites with a
    /// direction, or a geometry without a solution, computes none (gpsd writes only the receiver's then).
    public var dilution: DilutionOfPrecision {
        var result = DilutionOfPrecision()
        if let q = Self.covariance(satellites.filter(\.used)) {
            result = DilutionOfPrecision(
                x: q[0][0].squareRoot(), y: q[1][1].squareRoot(), vertical: q[2][2].squareRoot(),
                time: q[3][3].squareRoot(), horizontal: (q[0][0] + q[1][1]).squareRoot(),
                geometric: (q[0][0] + q[1][1] + q[2][2] + q[3][3]).squareRoot(),
                position: (q[0][0] + q[1][1] + q[2][2]).squareRoot())
        }
        result.vertical = reportedVDOP ?? result.vertical
        result.horizontal = reportedHDOP ?? result.horizontal
        result.position = reportedPDOP ?? result.position
        return result
    }

    /// (GᵀG)⁻¹ by Gauss–Jordan elimination with partial pivoting; nil when singular or under four satellites.
    static func covariance(_ used: [Satellite]) -> [[Double]]? {
        let rows = used.compactMap { satellite -> [Double]? in
            guard let elevation = satellite.elevation, let azimuth = satellite.azimuth else { return nil }
            let e = elevation * .pi / 180
            let a = azimuth * .pi / 180
            return [cos(e) * sin(a), cos(e) * cos(a), sin(e), 1]
        }
        guard rows.count >= 4 else { return nil }
        var m = (0..<4).map { i in
            (0..<4).map { j in rows.reduce(0) { $0 + $1[i] * $1[j] } } + (0..<4).map { $0 == i ? 1.0 : 0.0 }
        }
        for column in 0..<4 {
            guard let pivot = (column..<4).max(by: { abs(m[$0][column]) < abs(m[$1][column]) }),
                abs(m[pivot][column]) > 1e-12
            else { return nil }
            m.swapAt(column, pivot)
            let divisor = m[column][column]
            m[column] = m[column].map { $0 / divisor }
            for row in 0..<4 where row != column {
                let factor = m[row][column]
                if factor != 0 { m[row] = zip(m[row], m[column]).map { $0 - factor * $1 } }
            }
        }
        let q = m.map { Array($0[4...]) }
        return q.allSatisfy({ row in row.allSatisfy(\.isFinite) }) && (0..<4).allSatisfy({ q[$0][$0] > 0 }) ? q : nil
    }
}

/// A receiver source that says which satellites it saw (the NMEA sources, gpsd): read by locationd's gpsd front door for
/// `SKY`.
public protocol SatelliteViewReporting: LocationSource {
    /// The view of the epoch of the fix timed `fixTime`, nil when the source has none for it (not its fix, or one
    /// of the earlier ones it no longer keeps).
    func satelliteView(for fixTime: Date) -> SatelliteView?
}

extension NMEAStreamSource: SatelliteViewReporting {
    public func satelliteView(for fixTime: Date) -> SatelliteView? {
        // A live input's latest fix is the last of its kept statuses; a replay keeps only its status.
        let statuses = state.withLock { $0.replay.map { [$0.status] } ?? $0.statusAtRecentFixes }
        guard let status = statuses.last(where: { $0.lastFix == fixTime }), !status.satellites.isEmpty else {
            return nil
        }
        return SatelliteView(status)
    }
}
