import Foundation
import Testing

@testable import CoreLocationGeodesy

/// `CivilCalendar` against Foundation's Gregorian calendar in UTC (the oracle), both directions, over
/// four centuries around 1970 (every leap rule: 1900 not leap, 2000 leap, 2100 not) and far years.
struct CivilCalendarTests {
    static var gregorian: Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        return calendar
    }

    @Test("day numbers and dates agree with Foundation's Gregorian calendar from 1800 to 2200")
    func agreesWithFoundation() {
        let calendar = Self.gregorian
        var mismatches = 0
        // Day -62 091 is 1800-01-01; day 84 006 is 2200-01-01.
        for days in stride(from: -62_091, through: 84_006, by: 7) {
            let parts = calendar.dateComponents(
                [.year, .month, .day], from: Date(timeIntervalSince1970: Double(days) * 86_400))
            let (year, month, day) = CivilCalendar.date(days: days)
            if (year, month, day) != (parts.year, parts.month, parts.day) { mismatches += 1 }
            if CivilCalendar.days(year: year, month: month, day: day) != days { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("published anchors: the epoch, leap days and the GPS epoch")
    func anchors() {
        #expect(CivilCalendar.days(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilCalendar.days(year: 1980, month: 1, day: 6) == 3_657)  // GPS week 0 began here.
        #expect(CivilCalendar.days(year: 2000, month: 3, day: 1) - CivilCalendar.days(year: 2000, month: 2, day: 28) == 2)
        #expect(CivilCalendar.days(year: 1900, month: 3, day: 1) - CivilCalendar.days(year: 1900, month: 2, day: 28) == 1)
        #expect(CivilCalendar.date(days: -1) == (1969, 12, 31))
        #expect(CivilCalendar.date(days: 2_932_896) == (9999, 12, 31))
        #expect(CivilCalendar.days(year: 0, month: 3, day: 1) == -719_468)
    }
}
