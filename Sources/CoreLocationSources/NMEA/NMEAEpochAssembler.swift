import CoreLocationGeodesy
import Foundation
import CoreLocationEngine

/// What one epoch (one measurement cycle of the receiver) amounts to.
public enum NMEAEpochEvent: Sendable, Equatable {
    /// A position, with the receiver status of the same epoch.
    case fix(Fix)
    /// The receiver reported, but without a usable position (GGA quality 0, RMC status V, …).
    case noFix(reason: String)
}

/// Combines the sentences of one receiver epoch into one `Fix`. Pure: a state machine fed with
/// sentences; time comes only from the sentences (and, when no sentence ever gave a date, from the
/// `receivedAt` the caller passes).
///
/// **Epochs.** Sentences carrying a UTC time (GGA, RMC, GLL, GNS, GST, ZDA) belong to the epoch of
/// that time; the others (VTG, GSA, GSV) to the current one. A change of time closes the epoch. To
/// report without waiting a whole cycle for the next one, the assembler learns, as gpsd does, which
/// sentence ends a cycle (the last GNSS sentence before the time changed); once known, that sentence
/// closes the epoch at once (for GSV: its last part).
///
/// **Timestamps.** Date from RMC or ZDA plus the epoch's time of day. Across midnight a GGA may come
/// before the RMC with the new date: a time of day more than 12 h earlier than the one the date came
/// with is taken as the next day. GPS week roll-over: receivers with the 1024-week bug report dates
/// 1024 weeks (19.6 years) too early after their firmware's roll-over; any date before
/// `referenceDate` has 1024 weeks added until it is not. Sources reading live receivers use
/// `NMEAEpochAssembler.releaseReferenceDate` (no live receiver can report an earlier date); replays of
/// old recordings pass nil (no correction).
///
/// **Accuracy**: see `NMEAAccuracyModel`. **Fix**: `isFromAccessory` true; position from the epoch's
/// last sentence with a valid position, whichever of GGA, GNS, RMC, GLL it is (gpsd's rule: when a
/// chart plotter's sentences of one second disagree, the fix equals gpsd's; decision 0014); altitude
/// (MSL) from GGA/GNS, ellipsoidal altitude = MSL + geoid separation N (when N is missing, the
/// ellipsoidal altitude is set to the MSL altitude).
public struct NMEAEpochAssembler: Sendable {
    /// 2025-01-01T00:00:00Z: earlier than any date a working receiver can report today.
    public static let releaseReferenceDate = Date(timeIntervalSince1970: 1_735_689_600)
    /// 1024 GPS weeks, seconds.
    public static let weekRollover: TimeInterval = 1024 * 7 * 86_400

    public var referenceDate: Date?
    /// Marks every fix as simulated (for replays of recordings).
    public var marksFixesSimulated: Bool
    public internal(set) var status = NMEAReceiverStatus()
    /// The status as each of the latest fixes left it (at most `keptFixStatuses`, newest last): one read that closes
    /// two epochs still tells each fix's satellites (gpsd's `SKY`, decision 0089).
    public internal(set) var statusAtRecentFixes: [NMEAReceiverStatus] = []
    static let keptFixStatuses = 8
    /// UTC time of day of the epoch closed last (seconds after midnight).
    public internal(set) var lastClosedEpochTime: Double?

    var epoch = Epoch()
    /// Days since 1970-01-01 of the last date a sentence gave, and the time of day it came with.
    var knownDay: Int?
    var knownDayTime: Double = 0
    private var cycleEnd: CycleKey?
    private var lastKey: CycleKey?

    public init(referenceDate: Date? = NMEAEpochAssembler.releaseReferenceDate, marksFixesSimulated: Bool = false) {
        self.referenceDate = referenceDate
        self.marksFixesSimulated = marksFixesSimulated
    }

    /// Feeds one sentence; returns the events of any epoch it completes (zero, one, or — when the
    /// sentence both closes the previous epoch and completes its own — two).
    public mutating func handle(_ sentence: NMEASentence, receivedAt: Date) -> [NMEAEpochEvent] {
        var events: [NMEAEpochEvent] = []
        if let time = sentence.timeOfDay {
            if let current = epoch.time, abs(current - time) > 0.0005 {
                if !epoch.emitted {
                    // The cycle closed by a time change: its last sentence is the cycle's end.
                    cycleEnd = lastKey
                    if let event = close(receivedAt: receivedAt) { events.append(event) }
                }
                epoch = Epoch()
            }
            if epoch.time == nil { epoch.time = time }
        }
        absorb(sentence)
        let key = CycleKey(sentence)
        if let key {
            lastKey = key
            if key == cycleEnd, !epoch.emitted, epoch.time != nil, isCycleEndComplete(sentence) {
                if let event = close(receivedAt: receivedAt) { events.append(event) }
            }
        }
        return events
    }

    /// Closes the epoch in progress (end of stream).
    public mutating func finish(receivedAt: Date) -> NMEAEpochEvent? {
        guard !epoch.emitted, epoch.time != nil else { return nil }
        let event = close(receivedAt: receivedAt)
        epoch = Epoch()
        return event
    }

    private func isCycleEndComplete(_ sentence: NMEASentence) -> Bool {
        if case .gsv(let gsv) = sentence.body { return gsv.messageNumber == gsv.messageCount }
        return true
    }

    private mutating func absorb(_ sentence: NMEASentence) {
        switch sentence.body {
        case .gga(let gga):
            epoch.gga = gga
            epoch.takePosition(gga.latitude, gga.longitude, valid: true)
        case .rmc(let rmc):
            epoch.rmc = rmc
            epoch.takePosition(rmc.latitude, rmc.longitude, valid: rmc.isValid && rmc.mode?.isValidFix != false)
            if let date = rmc.date, let time = rmc.timeOfDay { learn(date, at: time) }
        case .gll(let gll):
            epoch.gll = gll
            epoch.takePosition(gll.latitude, gll.longitude, valid: gll.isValid && gll.mode?.isValidFix != false)
        case .gns(let gns):
            epoch.gns = gns
            epoch.takePosition(gns.latitude, gns.longitude, valid: gns.isValid)
        case .vtg(let vtg): epoch.vtg = vtg
        case .gst(let gst): epoch.gst = gst
        case .zda(let zda):
            if let date = zda.date, let time = zda.timeOfDay { learn(date, at: time) }
        case .gsa(let gsa): epoch.absorb(gsa, talker: sentence.talker)
        case .gsv(let gsv): absorbSatellites(gsv, talker: sentence.talker)
        case .hdt, .hdg, .ths: break
        }
    }

    private mutating func learn(_ date: NMEADate, at time: Double) {
        knownDay = CivilCalendar.days(year: date.year, month: date.month, day: date.day)
        knownDayTime = time
        epoch.hasDate = true
    }

    private mutating func absorbSatellites(_ gsv: NMEAGSV, talker: NMEATalker) {
        let key = SignalKey(talker: talker, signal: gsv.signalID ?? 0)
        if gsv.messageNumber == 1 { epoch.pendingSatellites[key] = [] }
        for satellite in gsv.satellites {
            epoch.pendingSatellites[key, default: []].append(satellite)
        }
        epoch.inView[key] = gsv.satellitesInView
        if gsv.messageNumber == gsv.messageCount, let listed = epoch.pendingSatellites.removeValue(forKey: key) {
            if epoch.completeSatellites[key] == nil { epoch.completionOrder.append(key) }
            epoch.completeSatellites[key] = listed
        }
    }
}

extension NMEAEpochAssembler {
    /// The sentences gathered for one epoch.
    struct Epoch: Sendable {
        var time: Double?
        var emitted = false
        var hasDate = false
        var gga: NMEAGGA?
        var rmc: NMEARMC?
        var gll: NMEAGLL?
        var gns: NMEAGNS?
        var vtg: NMEAVTG?
        var gst: NMEAGST?
        /// The position of the epoch's last sentence that carried a valid one (see `takePosition`).
        var position: (latitude: Double, longitude: Double)?
        var fixType: Int?
        var pdop: Double?
        var hdop: Double?
        var vdop: Double?
        /// Used satellite IDs per system (talker, or the GSA 4.11 system ID).
        var used: [Int: Set<UInt16>] = [:]
        var pendingSatellites: [SignalKey: [NMEASatelliteInView]] = [:]
        var completeSatellites: [SignalKey: [NMEASatelliteInView]] = [:]
        /// The keys of `completeSatellites` in the order their cycles completed: the satellites are listed in the
        /// order the receiver sent them, as gpsd lists them in `SKY`.
        var completionOrder: [SignalKey] = []
        var inView: [SignalKey: Int] = [:]

        /// gpsd's rule (`drivers/driver_nmea0183.c`, gpsd 3.22 and later): every sentence that parses
        /// a position (GGA, GNS, RMC with status A, GLL with status A and a mode other than N)
        /// overwrites the cycle's latitude and longitude, so the **last** one of the epoch wins,
        /// whatever its kind. Sentences without a valid position leave the previous one.
        mutating func takePosition(_ latitude: Double?, _ longitude: Double?, valid: Bool) {
            guard valid, let latitude, let longitude else { return }
            position = (latitude, longitude)
        }

        mutating func absorb(_ gsa: NMEAGSA, talker: NMEATalker) {
            if let type = gsa.fixType { fixType = max(fixType ?? 0, type) }
            pdop = gsa.pdop ?? pdop
            hdop = gsa.hdop ?? hdop
            vdop = gsa.vdop ?? vdop
            let system = gsa.systemID ?? talker.system?.rawValue ?? 0
            used[system, default: []].formUnion(gsa.satellites)
        }
    }

    struct SignalKey: Hashable, Sendable {
        var talker: NMEATalker
        var signal: Int
    }

    /// A sentence kind that can end a cycle: GNSS sentences only (a heading sensor's HDG interleaves
    /// freely with the receiver's output).
    struct CycleKey: Hashable, Sendable {
        var talker: NMEATalker
        var kind: Int

        init?(_ sentence: NMEASentence) {
            talker = sentence.talker
            switch sentence.body {
            case .gga: kind = 1
            case .rmc: kind = 2
            case .gll: kind = 3
            case .vtg: kind = 4
            case .gsa: kind = 5
            case .gsv: kind = 6
            case .gst: kind = 7
            case .gns: kind = 8
            case .zda: kind = 9
            case .hdt, .hdg, .ths: return nil
            }
        }
    }
}
