// Per-type field layouts. Each decoder reads its fields in order from the cursor; trailing fields of
// newer NMEA versions are read only when present. Ranges are checked so that a corrupted field whose
// checksum happens to match still cannot produce an impossible value.

extension NMEAFieldCursor {
    /// The next field, which the sentence type requires to exist (it may be empty).
    mutating func required() throws(NMEADecodeError) -> NMEAField {
        if isExhausted { throw .truncated }
        return next()
    }
}

extension NMEAValue {
    /// The value, nil when empty; throws when malformed.
    func get() throws(NMEADecodeError) -> Wrapped? {
        switch self {
        case .value(let value): return value
        case .absent: return nil
        case .invalid: throw .invalid
        }
    }
}

private func checked<T: Comparable>(_ value: T?, _ range: ClosedRange<T>) throws(NMEADecodeError) -> T? {
    guard let value else { return nil }
    guard range.contains(value) else { throw .invalid }
    return value
}

private func latitude(_ value: NMEAField, _ hemisphere: NMEAField) throws(NMEADecodeError) -> Double? {
    try value.angle(
        degreeDigits: 2, hemisphere: hemisphere, positive: UInt8(ascii: "N"), negative: UInt8(ascii: "S"), limit: 90
    ).get()
}

private func longitude(_ value: NMEAField, _ hemisphere: NMEAField) throws(NMEADecodeError) -> Double? {
    try value.angle(
        degreeDigits: 3, hemisphere: hemisphere, positive: UInt8(ascii: "E"), negative: UInt8(ascii: "W"), limit: 180
    ).get()
}

/// A value with an E/W letter (magnetic variation, deviation): east positive.
private func eastWest(_ value: NMEAField, _ letter: NMEAField) throws(NMEADecodeError) -> Double? {
    guard let magnitude = try checked(value.decimal.get(), 0...180) else { return nil }
    switch letter.character {
    case UInt8(ascii: "E"), nil: return magnitude
    case UInt8(ascii: "W"): return -magnitude
    default: throw .invalid
    }
}

private func mode(_ field: NMEAField) throws(NMEADecodeError) -> NMEAModeIndicator? {
    guard let letter = field.firstCharacter else { return nil }
    guard let mode = NMEAModeIndicator(rawValue: letter) else { throw .invalid }
    return mode
}

private func status(_ field: NMEAField) throws(NMEADecodeError) -> Bool? {
    switch field.character {
    case UInt8(ascii: "A"): return true
    case UInt8(ascii: "V"): return false
    case nil where field.isEmpty: return nil
    default: throw .invalid
    }
}

/// Altitudes: −1 km (Dead Sea shores, mines) to 100 km (balloons; receivers' COCOM limit is 18 km).
private let altitudeRange: ClosedRange<Double> = -1_000...100_000
/// Geoid undulation is within ±110 m on Earth; ±200 leaves margin for receivers' coarse models.
private let separationRange: ClosedRange<Double> = -200...200
private let angleRange: ClosedRange<Double> = 0...360
private let dopRange: ClosedRange<Double> = 0...100

extension NMEAParser {
    static func decodeGGA(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEAGGA {
        let time = try cursor.required().timeOfDay.get()
        let lat = try cursor.required()
        let ns = try cursor.required()
        let lon = try cursor.required()
        let ew = try cursor.required()
        let quality = try checked(cursor.required().integer.get(), 0...9) ?? 0
        let used = try checked(cursor.required().integer.get(), 0...99)
        let hdop = try checked(cursor.required().decimal.get(), dopRange)
        let altitude = try checked(cursor.next().decimal.get(), altitudeRange)
        cursor.skip(1)
        let separation = try checked(cursor.next().decimal.get(), separationRange)
        cursor.skip(1)
        let age = try checked(cursor.next().decimal.get(), 0...100_000)
        let station = try checked(cursor.next().integer.get(), 0...9_999)
        return NMEAGGA(
            timeOfDay: time, latitude: try latitude(lat, ns), longitude: try longitude(lon, ew), quality: quality,
            satellitesUsed: used, hdop: hdop, altitudeMSL: altitude, geoidSeparation: separation,
            differentialAge: age, differentialStation: station
        )
    }

    static func decodeRMC(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEARMC {
        let time = try cursor.required().timeOfDay.get()
        let valid = try status(cursor.required()) ?? false
        let lat = try cursor.required()
        let ns = try cursor.required()
        let lon = try cursor.required()
        let ew = try cursor.required()
        let speed = try checked(cursor.required().decimal.get(), 0...100_000)
        let course = try checked(cursor.required().decimal.get(), angleRange)
        let date = try rmcDate(cursor.required())
        let variation = try eastWest(cursor.next(), cursor.next())
        let mode = try mode(cursor.next())
        let navigationalStatus = cursor.next().character
        return NMEARMC(
            timeOfDay: time, isValid: valid, latitude: try latitude(lat, ns), longitude: try longitude(lon, ew),
            speedKnots: speed, courseTrue: course, date: date, magneticVariation: variation, mode: mode,
            navigationalStatus: navigationalStatus
        )
    }

    /// `ddmmyy`; two-digit years 80–99 are 1980–1999 (GPS began in 1980), 00–79 are 2000–2079.
    private static func rmcDate(_ field: NMEAField) throws(NMEADecodeError) -> NMEADate? {
        guard !field.isEmpty else { return nil }
        guard field.count == 6, case .value(let packed) = field.integer, packed >= 0 else { throw .invalid }
        let day = packed / 10_000
        let month = packed / 100 % 100
        let shortYear = packed % 100
        guard (1...12).contains(month), (1...31).contains(day) else { throw .invalid }
        return NMEADate(year: shortYear >= 80 ? 1900 + shortYear : 2000 + shortYear, month: month, day: day)
    }

    static func decodeGLL(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEAGLL {
        let lat = try cursor.required()
        let ns = try cursor.required()
        let lon = try cursor.required()
        let ew = try cursor.required()
        let time = try cursor.next().timeOfDay.get()
        let valid = try status(cursor.next())
        let mode = try mode(cursor.next())
        let latitude = try latitude(lat, ns)
        let longitude = try longitude(lon, ew)
        // NMEA 1.x GLL has no status: a position counts as valid.
        return NMEAGLL(
            latitude: latitude, longitude: longitude, timeOfDay: time,
            isValid: valid ?? (latitude != nil && longitude != nil), mode: mode
        )
    }

    static func decodeVTG(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEAVTG {
        let first = try checked(cursor.required().decimal.get(), angleRange)
        let second = try cursor.required()
        if second.character == UInt8(ascii: "T")
            || (second.isEmpty && !cursor.isExhausted && cursor.remainingCount >= 6)
        {
            let magnetic = try checked(cursor.required().decimal.get(), angleRange)
            cursor.skip(1)
            let knots = try checked(cursor.required().decimal.get(), 0...100_000)
            cursor.skip(1)
            let kmh = try checked(cursor.required().decimal.get(), 0...200_000)
            cursor.skip(1)
            let mode = try mode(cursor.next())
            return NMEAVTG(
                courseTrue: first, courseMagnetic: magnetic, speedKnots: knots, speedKilometresPerHour: kmh, mode: mode
            )
        }
        // NMEA 1.5 layout: course true, course magnetic, knots, km/h, without unit letters.
        let magnetic = try checked(second.decimal.get(), angleRange)
        let knots = try checked(cursor.required().decimal.get(), 0...100_000)
        let kmh = try checked(cursor.required().decimal.get(), 0...200_000)
        return NMEAVTG(courseTrue: first, courseMagnetic: magnetic, speedKnots: knots, speedKilometresPerHour: kmh)
    }

    static func decodeGSA(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEAGSA {
        let selection = try cursor.required().firstCharacter
        let fixType = try checked(cursor.required().integer.get(), 1...3)
        var satellites = NMEASatelliteIDs()
        for _ in 0..<NMEASatelliteIDs.capacity {
            if let id = try checked(cursor.required().integer.get(), 1...999) { satellites.append(UInt16(id)) }
        }
        let pdop = try checked(cursor.required().decimal.get(), dopRange)
        let hdop = try checked(cursor.required().decimal.get(), dopRange)
        let vdop = try checked(cursor.required().decimal.get(), dopRange)
        let system = try checked(cursor.next().integer.get(), 0...15)
        return NMEAGSA(
            selectionMode: selection, fixType: fixType, satellites: satellites, pdop: pdop, hdop: hdop, vdop: vdop,
            systemID: system
        )
    }

    static func decodeGSV(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEAGSV {
        guard let count = try checked(cursor.required().integer.get(), 1...99),
            let number = try checked(cursor.required().integer.get(), 1...99), number <= count
        else { throw .invalid }
        let inView = try checked(cursor.required().integer.get(), 0...999) ?? 0
        let remaining = cursor.remainingCount
        // Four fields per satellite; NMEA 4.11 appends one signal ID field.
        let groups = remaining / 4
        var satellites = NMEASatellitesInView()
        for _ in 0..<groups {
            let id = try checked(cursor.next().integer.get(), 0...999)
            let elevation = try checked(cursor.next().integer.get(), -90...90)
            let azimuth = try checked(cursor.next().integer.get(), 0...360)
            let snr = try checked(cursor.next().integer.get(), 0...99)
            if let id, satellites.count < 4 {
                satellites.append(NMEASatelliteInView(id: id, elevation: elevation, azimuth: azimuth, snr: snr))
            }
        }
        let signal = remaining % 4 == 1 ? try checked(cursor.next().integer.get(), 0...15) : nil
        return NMEAGSV(
            messageCount: count, messageNumber: number, satellitesInView: inView, satellites: satellites,
            signalID: signal
        )
    }

    static func decodeGST(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEAGST {
        let errors: ClosedRange<Double> = 0...1_000_000
        return NMEAGST(
            timeOfDay: try cursor.required().timeOfDay.get(),
            rangeRMS: try checked(cursor.required().decimal.get(), errors),
            semiMajor: try checked(cursor.required().decimal.get(), errors),
            semiMinor: try checked(cursor.required().decimal.get(), errors),
            orientation: try checked(cursor.required().decimal.get(), -360...360),
            latitudeError: try checked(cursor.required().decimal.get(), errors),
            longitudeError: try checked(cursor.required().decimal.get(), errors),
            altitudeError: try checked(cursor.required().decimal.get(), errors)
        )
    }

    static func decodeGNS(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEAGNS {
        let time = try cursor.required().timeOfDay.get()
        let lat = try cursor.required()
        let ns = try cursor.required()
        let lon = try cursor.required()
        let ew = try cursor.required()
        let modes = try cursor.required()
        var best: NMEAModeIndicator?
        var index = modes.start
        while index < modes.end {
            guard let mode = NMEAModeIndicator(rawValue: modes.bytes[index]) else { throw .invalid }
            if Self.rank(mode) > best.map(Self.rank) ?? -1 { best = mode }
            index += 1
        }
        let used = try checked(cursor.required().integer.get(), 0...99)
        let hdop = try checked(cursor.required().decimal.get(), dopRange)
        let altitude = try checked(cursor.required().decimal.get(), altitudeRange)
        let separation = try checked(cursor.required().decimal.get(), separationRange)
        let age = try checked(cursor.next().decimal.get(), 0...100_000)
        let station = try checked(cursor.next().integer.get(), 0...9_999)
        let navigationalStatus = cursor.next().character
        return NMEAGNS(
            timeOfDay: time, latitude: try latitude(lat, ns), longitude: try longitude(lon, ew), bestMode: best,
            isValid: best?.isValidFix ?? false, satellitesUsed: used, hdop: hdop, altitudeMSL: altitude,
            geoidSeparation: separation, differentialAge: age, differentialStation: station,
            navigationalStatus: navigationalStatus
        )
    }

    /// Preference among the per-system modes of GNS: the most precise valid one describes the fix.
    private static func rank(_ mode: NMEAModeIndicator) -> Int {
        switch mode {
        case .rtkFixed: 8
        case .rtkFloat: 7
        case .precise: 6
        case .differential: 5
        case .autonomous: 4
        case .estimated: 3
        case .manual: 2
        case .simulator: 1
        case .notValid: 0
        }
    }

    static func decodeZDA(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEAZDA {
        let time = try cursor.required().timeOfDay.get()
        let day = try checked(cursor.required().integer.get(), 1...31)
        let month = try checked(cursor.required().integer.get(), 1...12)
        let year = try checked(cursor.required().integer.get(), 1980...9999)
        let zoneHours = try checked(cursor.next().integer.get(), -13...13)
        let zoneMinutes = try checked(cursor.next().integer.get(), 0...59)
        var date: NMEADate?
        if let day, let month, let year { date = NMEADate(year: year, month: month, day: day) }
        return NMEAZDA(timeOfDay: time, date: date, zoneHours: zoneHours, zoneMinutes: zoneMinutes)
    }

    static func decodeHDT(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEAHDT {
        NMEAHDT(heading: try checked(cursor.required().decimal.get(), angleRange))
    }

    static func decodeHDG(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEAHDG {
        let heading = try checked(cursor.required().decimal.get(), angleRange)
        let deviation = try eastWest(cursor.required(), cursor.required())
        let variation = try eastWest(cursor.next(), cursor.next())
        return NMEAHDG(sensorHeading: heading, deviation: deviation, variation: variation)
    }

    static func decodeTHS(_ cursor: inout NMEAFieldCursor) throws(NMEADecodeError) -> NMEATHS {
        let heading = try checked(cursor.required().decimal.get(), angleRange)
        let status = try cursor.required().character
        return NMEATHS(heading: heading, status: status)
    }
}
