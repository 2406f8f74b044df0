import Foundation

/// What a receiver said about itself in its latest epoch, for `locationctl sources` and diagnostics.
public struct NMEAReceiverStatus: Sendable, Hashable {
    public enum FixMode: String, Sendable, Hashable {
        case unknown
        case noFix = "no fix"
        case twoD = "2D"
        case threeD = "3D"
    }

    /// From GSA's fix type, else inferred (a GGA/RMC fix with altitude counts as 3D).
    public var fixMode: FixMode = .unknown
    /// GGA's fix quality (0 none, 1 GPS, 2 DGPS/SBAS, 4 RTK fixed, 5 RTK float, 6 estimated…).
    public var quality: Int?
    /// The mode letter of RMC/GNS/GLL/VTG (NMEA 2.3+).
    public var mode: NMEAModeIndicator?
    /// Satellites used in the solution: distinct IDs of the epoch's GSA sentences, else GNS/GGA's count.
    public var satellitesUsed: Int?
    /// Satellites in view: the sum over constellations of GSV's "in view" count.
    public var satellitesInView: Int?
    /// The satellites of the latest complete GSV cycles, with `used` from GSA.
    public var satellites: [NMEASatellite] = []
    public var pdop: Double?
    public var hdop: Double?
    public var vdop: Double?
    /// Timestamp of the last epoch that produced a fix.
    public var lastFix: Date?
    /// Why the last epoch produced no fix, nil after a fix.
    public var lastProblem: String?
    /// Sentence counters of the stream (filled in by the source).
    public var statistics = NMEAStatistics()

    public init() {}
}

/// One satellite in view.
public struct NMEASatellite: Sendable, Hashable {
    /// The talker of the GSV that listed it (`GP`, `GL`, `GA`, `GB`, …).
    public var talker: NMEATalker
    public var id: Int
    public var elevation: Int?
    public var azimuth: Int?
    /// Signal-to-noise ratio, dB-Hz; nil when not tracked.
    public var snr: Int?
    /// True when a GSA of the same epoch lists it as used.
    public var used: Bool

    public init(talker: NMEATalker, id: Int, elevation: Int?, azimuth: Int?, snr: Int?, used: Bool) {
        self.talker = talker
        self.id = id
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
        self.used = used
    }
}

extension NMEAReceiverStatus: CustomStringConvertible {
    /// One line for people, e.g. `3D fix (GPS), 8 used / 12 in view, HDOP 1.1; 15 sentences, 0 dropped`.
    public var description: String {
        var parts: [String] = []
        var fix = fixMode == .unknown ? "no report yet" : fixMode == .noFix ? "no fix" : "\(fixMode.rawValue) fix"
        if fixMode == .twoD || fixMode == .threeD, let quality, let name = Self.qualityNames[quality] {
            fix += " (\(name))"
        }
        parts.append(fix)
        switch (satellitesUsed, satellitesInView) {
        case (let used?, let inView?): parts.append("\(used) used / \(inView) in view")
        case (let used?, nil): parts.append("\(used) used")
        case (nil, let inView?): parts.append("\(inView) in view")
        case (nil, nil): break
        }
        if let hdop { parts.append("HDOP \(hdop)") }
        let counters = "\(statistics.decoded) sentences, \(statistics.dropped) dropped"
        return parts.joined(separator: ", ") + "; " + counters
    }

    private static let qualityNames = [
        1: "GPS", 2: "DGPS/SBAS", 3: "PPS", 4: "RTK fixed", 5: "RTK float", 6: "dead reckoning",
    ]
}
