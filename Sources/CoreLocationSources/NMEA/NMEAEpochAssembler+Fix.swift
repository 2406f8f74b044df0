import Foundation
import CoreLocationGeodesy
import CoreLocationEngine

extension NMEAEpochAssembler {
    /// Metres per second in one knot (1852 m per hour, exact by definition).
    static let metresPerSecondPerKnot = 1852.0 / 3600.0

    /// Turns the epoch into an event and updates `status`.
    mutating func close(receivedAt: Date) -> NMEAEpochEvent? {
        epoch.emitted = true
        lastClosedEpochTime = epoch.time
        updateStatus()
        guard let time = epoch.time else { return nil }
        if let problem = invalidity() {
            status.lastProblem = problem
            return .noFix(reason: problem)
        }
        guard let position = position() else {
            status.lastProblem = "no position in the epoch"
            return .noFix(reason: "no position in the epoch")
        }
        let timestamp = self.timestamp(timeOfDay: time, receivedAt: receivedAt)
        let quality = epoch.gga?.quality
        let mode = epoch.rmc?.mode ?? epoch.gns?.bestMode ?? epoch.gll?.mode
        let uere = NMEAAccuracyModel.userEquivalentRangeError(quality: quality, mode: mode)
        let hdop = epoch.gga?.hdop ?? epoch.gns?.hdop ?? epoch.hdop
        let altitudeMSL = epoch.gga?.altitudeMSL ?? epoch.gns?.altitudeMSL
        let separation = epoch.gga?.geoidSeparation ?? epoch.gns?.geoidSeparation

        var horizontal: Double
        var vertical: Double
        if let gst = epoch.gst, let latError = gst.latitudeError, let lonError = gst.longitudeError {
            horizontal = NMEAAccuracyModel.horizontalAccuracy(latitudeError: latError, longitudeError: lonError)
            vertical = gst.altitudeError ?? -1
        } else {
            let dop = hdop ?? NMEAAccuracyModel.nominalDOP
            horizontal = dop * uere
            vertical = (epoch.vdop ?? dop * NMEAAccuracyModel.verticalToHorizontalDOP) * uere
        }
        if altitudeMSL == nil || epoch.fixType == 2 { vertical = -1 }

        var speed = -1.0
        if let knots = epoch.rmc?.speedKnots ?? epoch.vtg?.speedKnots {
            speed = knots * Self.metresPerSecondPerKnot
        } else if let kmh = epoch.vtg?.speedKilometresPerHour {
            speed = kmh / 3.6
        }
        var speedAccuracy = -1.0
        if speed >= 0 {
            speedAccuracy =
                quality == 6 || mode == .estimated
                ? NMEAAccuracyModel.deadReckoningSpeedAccuracy
                : max(
                    NMEAAccuracyModel.minimumSpeedAccuracy,
                    (hdop ?? NMEAAccuracyModel.nominalDOP) * NMEAAccuracyModel.speedErrorPerDOP)
        }
        var course = epoch.rmc?.courseTrue ?? epoch.vtg?.courseTrue ?? -1
        var courseAccuracy = -1.0
        if course >= 0 && speed > 0 {
            if course >= 360 { course -= 360 }
            courseAccuracy = NMEAAccuracyModel.courseAccuracy(speed: speed, speedAccuracy: speedAccuracy)
        } else {
            course = -1
        }
        let altitude = altitudeMSL ?? 0
        status.lastFix = timestamp
        status.lastProblem = nil
        statusAtRecentFixes.append(status)
        if statusAtRecentFixes.count > Self.keptFixStatuses { statusAtRecentFixes.removeFirst() }
        return .fix(
            Fix(
                latitude: position.latitude, longitude: position.longitude,
                // Receivers that leave GGA's geoid separation empty get EGM96's (issue 5): both
                // altitudes stay right whichever one the receiver reports.
                altitude: altitude,
                ellipsoidalAltitude: altitude + (separation ?? geoidHeight(latitude: position.latitude, longitude: position.longitude)),
                horizontalAccuracy: horizontal, verticalAccuracy: vertical,
                course: course, courseAccuracy: courseAccuracy, speed: speed, speedAccuracy: speedAccuracy,
                timestamp: timestamp, isSimulated: marksFixesSimulated, isFromAccessory: true
            )
        )
    }

    /// Why the epoch has no fix, nil when it has one. Any sentence saying "no fix" wins: a receiver
    /// that contradicts itself is not trusted with a position.
    private func invalidity() -> String? {
        if let gga = epoch.gga {
            if gga.quality == 0 { return "no fix (GGA quality 0)" }
            if gga.quality == 7 || gga.quality == 8 { return "no measured fix (GGA quality \(gga.quality))" }
        }
        if let rmc = epoch.rmc {
            if !rmc.isValid { return "no fix (RMC status V)" }
            if let mode = rmc.mode, !mode.isValidFix {
                return "no fix (RMC mode \(Character(Unicode.Scalar(mode.rawValue))))"
            }
        }
        if let gns = epoch.gns, !gns.isValid { return "no fix (GNS mode)" }
        if let gll = epoch.gll {
            if !gll.isValid { return "no fix (GLL status V)" }
            if let mode = gll.mode, !mode.isValidFix { return "no fix (GLL mode)" }
        }
        if epoch.fixType == 1 { return "no fix (GSA fix type 1)" }
        return nil
    }

    /// The epoch's position: its last valid position sentence's (gpsd's rule, `Epoch.takePosition`).
    private func position() -> (latitude: Double, longitude: Double)? { epoch.position }

    /// The epoch's UTC date and time; see the type's documentation for midnight and roll-over.
    func timestamp(timeOfDay: Double, receivedAt: Date) -> Date {
        var seconds: Double
        if let day = knownDay {
            var epochDay = day
            if timeOfDay < knownDayTime - 43_200 { epochDay += 1 }
            if timeOfDay > knownDayTime + 43_200 { epochDay -= 1 }
            seconds = Double(epochDay) * 86_400 + timeOfDay
            if let reference = referenceDate?.timeIntervalSince1970 {
                // Bounded: a 16-bit-ish week counter can be at most a few roll-overs behind.
                var rollovers = 0
                while seconds < reference && rollovers < 8 {
                    seconds += Self.weekRollover
                    rollovers += 1
                }
            }
        } else {
            // No date yet: the day of `receivedAt` that puts the time of day nearest to it.
            seconds = CivilCalendar.seconds(timeOfDay: timeOfDay, nearest: receivedAt.timeIntervalSince1970)
        }
        return Date(timeIntervalSince1970: seconds)
    }

    private mutating func updateStatus() {
        if let fixType = epoch.fixType {
            status.fixMode = fixType == 3 ? .threeD : fixType == 2 ? .twoD : .noFix
        } else if let gga = epoch.gga {
            status.fixMode = gga.quality == 0 ? .noFix : gga.altitudeMSL == nil ? .twoD : .threeD
        } else if let rmc = epoch.rmc, !rmc.isValid {
            status.fixMode = .noFix
        }
        if let quality = epoch.gga?.quality { status.quality = quality }
        if let mode = epoch.rmc?.mode ?? epoch.gns?.bestMode ?? epoch.gll?.mode ?? epoch.vtg?.mode {
            status.mode = mode
        }
        let usedCount = epoch.used.values.reduce(0) { $0 + $1.count }
        if usedCount > 0 {
            status.satellitesUsed = usedCount
        } else if let count = epoch.gns?.satellitesUsed ?? epoch.gga?.satellitesUsed {
            status.satellitesUsed = count
        }
        if !epoch.inView.isEmpty {
            // Per talker, the largest count over its signals: NMEA 4.11 lists each signal separately.
            var perTalker: [NMEATalker: Int] = [:]
            for (key, count) in epoch.inView { perTalker[key.talker] = max(perTalker[key.talker] ?? 0, count) }
            status.satellitesInView = perTalker.values.reduce(0, +)
        }
        if !epoch.completeSatellites.isEmpty {
            var seen = Set<SatelliteKey>()
            var satellites: [NMEASatellite] = []
            for key in epoch.completionOrder {
                for satellite in epoch.completeSatellites[key] ?? [] {
                    guard seen.insert(SatelliteKey(talker: key.talker, id: satellite.id)).inserted else { continue }
                    let system = key.talker.system?.rawValue ?? 0
                    let used =
                        epoch.used[system]?.contains(UInt16(clamping: satellite.id)) == true
                        || epoch.used[0]?.contains(UInt16(clamping: satellite.id)) == true
                    satellites.append(
                        NMEASatellite(
                            talker: key.talker, id: satellite.id, elevation: satellite.elevation,
                            azimuth: satellite.azimuth, snr: satellite.snr, used: used
                        )
                    )
                }
            }
            status.satellites = satellites
        }
        if let pdop = epoch.pdop { status.pdop = pdop }
        if let hdop = epoch.gga?.hdop ?? epoch.gns?.hdop ?? epoch.hdop { status.hdop = hdop }
        if let vdop = epoch.vdop { status.vdop = vdop }
    }

    private struct SatelliteKey: Hashable {
        var talker: NMEATalker
        var id: Int
    }
}
