import CoreLocationCellular
import CoreLocationDBus
import CoreLocationEngine
import Foundation
import Testing

/// `ModemGPSRaw`: ModemManager's GPS_RAW dictionary to a fix. Dates are checked against Foundation's ISO 8601
/// parser, the ellipsoidal altitude against the geoid separation a receiver printed for the same place.
struct ModemGPSRawTests {
    static func raw(_ entries: [String: DBusValue]) -> DBusValue {
        .variant(.dictionary(entries))
    }

    static func date(_ text: String) throws -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return try #require(formatter.date(from: text))
    }

    static func rejection(_ value: DBusValue, at date: Date = Date(timeIntervalSince1970: 1_795_000_000)) -> String? {
        do {
            _ = try ModemGPSRaw.decode(value, receivedAt: date)
            return nil
        } catch {
            return error.description
        }
    }

    /// NMEA's classic GGA example, `$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47`, as
    /// ModemManager turns it into GPS_RAW (48°07.038′ = 48.1173°, 11°31.000′ = 11.516 666…°).
    @Test func aDictionaryBecomesAFix() throws {
        let value = Self.raw([
            "utc-time": .string("123519"), "latitude": .double(48.1173), "longitude": .double(11.0 + 31.0 / 60),
            "altitude": .double(545.4),
        ])
        let received = try Self.date("2026-11-24T12:35:20.300Z")
        let decoded = try ModemGPSRaw.decode(value, receivedAt: received)
        #expect(decoded.utcTime == "123519")
        #expect(decoded.fix.latitude == 48.1173)
        #expect(decoded.fix.longitude == 11.0 + 31.0 / 60)
        #expect(decoded.fix.timestamp == (try Self.date("2026-11-24T12:35:19.000Z")))
        #expect(decoded.fix.altitude == 545.4)
        // The receiver said the geoid is 46.9 m above the ellipsoid there; EGM96 (47.7 m) agrees within 2 m.
        #expect(abs(decoded.fix.ellipsoidalAltitude - (545.4 + 46.9)) < 2)
        #expect(decoded.fix.horizontalAccuracy == 25)
        #expect(decoded.fix.verticalAccuracy == 37.5)
        #expect(decoded.fix.speed == -1 && decoded.fix.course == -1)
        #expect(decoded.fix.isFromAccessory)
        #expect(!decoded.fix.isSimulated)
    }

    @Test func theDateIsTheWallClocksNearestDayAcrossMidnight() throws {
        func stamp(_ time: String, _ received: String) throws -> Date {
            let value = Self.raw(["utc-time": .string(time), "latitude": .double(-37.78), "longitude": .double(175.3)])
            return try ModemGPSRaw.decode(value, receivedAt: try Self.date(received)).fix.timestamp
        }
        // Measured just before midnight, read just after: yesterday's.
        #expect(try stamp("235959.50", "2026-11-24T00:00:01.000Z") == (try Self.date("2026-11-23T23:59:59.500Z")))
        // Measured just after midnight, read (clock slightly behind) just before: tomorrow's.
        #expect(try stamp("000000.25", "2026-12-31T23:59:59.000Z") == (try Self.date("2027-01-01T00:00:00.250Z")))
        #expect(try stamp("081510.125", "2026-02-28T08:15:11.000Z") == (try Self.date("2026-02-28T08:15:10.125Z")))
    }

    @Test func withoutAltitudeTheVerticalIsInvalidButThePositionStays() throws {
        let received = try Self.date("2026-11-24T03:07:20.000Z")
        for altitude: DBusValue? in [nil, .double(.nan), .double(-5_000), .double(.leastNormalMagnitude)] {
            var entries: [String: DBusValue] = [
                "utc-time": .string("030719.00"), "latitude": .double(-37.784788), "longitude": .double(175.314897),
            ]
            if let altitude { entries["altitude"] = altitude }
            let fix = try ModemGPSRaw.decode(Self.raw(entries), receivedAt: received).fix
            #expect(fix.latitude == -37.784788)
            #expect(fix.verticalAccuracy == -1)
            #expect(fix.altitude == 0)
        }
    }

    @Test func badInputGivesNoFixAndSaysWhy() {
        let good: [String: DBusValue] = [
            "utc-time": .string("123519.00"), "latitude": .double(48.1173), "longitude": .double(11.5167),
        ]
        func with(_ key: String, _ value: DBusValue?) -> DBusValue {
            var entries = good
            entries[key] = value
            return Self.raw(entries)
        }
        #expect(Self.rejection(Self.raw(good)) == nil)
        #expect(Self.rejection(.variant(.string("123519,48.1,11.5"))) == "GPS_RAW: not a dictionary (a{sv}) but s")
        #expect(Self.rejection(with("latitude", nil)) == "GPS_RAW: no latitude")
        #expect(Self.rejection(with("longitude", .int32(11))) == "GPS_RAW: longitude is i, not a double")
        #expect(Self.rejection(with("latitude", .double(.nan))) == "GPS_RAW: latitude nan out of range")
        #expect(Self.rejection(with("latitude", .double(90.5))) == "GPS_RAW: latitude 90.5 out of range")
        #expect(Self.rejection(with("longitude", .double(-180.25))) == "GPS_RAW: longitude -180.25 out of range")
        #expect(Self.rejection(with("longitude", .double(.infinity))) == "GPS_RAW: longitude inf out of range")
        #expect(Self.rejection(with("latitude", .double(.leastNormalMagnitude))) == "GPS_RAW: latitude unknown")
        #expect(Self.rejection(with("utc-time", nil)) == "GPS_RAW: no utc-time string")
        #expect(Self.rejection(with("utc-time", .double(123519))) == "GPS_RAW: no utc-time string")
        for time in ["", "12:35:19", "12351", "243519", "126019", "123561", "123519.", "123519.x", "1235190"] {
            #expect(Self.rejection(with("utc-time", .string(time))) == "GPS_RAW: utc-time '\(time)' is not hhmmss.ss")
        }
        var zero = good
        zero["latitude"] = .double(0)
        zero["longitude"] = .double(0)
        #expect(Self.rejection(Self.raw(zero)) == "GPS_RAW: position 0,0 (no fix yet)")
        // The edges are valid: the poles, the antimeridian, a leap second.
        #expect(Self.rejection(with("latitude", .double(-90))) == nil)
        #expect(Self.rejection(with("longitude", .double(180))) == nil)
        #expect(Self.rejection(with("utc-time", .string("235960"))) == nil)
    }
}
