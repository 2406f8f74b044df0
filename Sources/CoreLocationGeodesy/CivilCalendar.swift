/// Day numbers of the proleptic Gregorian calendar, counted from 1970-01-01 (day 0), both ways.
///
/// H. Hinnant's `days_from_civil` and `civil_from_days` (<https://howardhinnant.github.io/date_algorithms.html>):
/// integer arithmetic on 400-year eras, exact for every date whose day number fits an `Int`, with no
/// calendar object and no allocation. GPX and gpsd timestamps, NMEA dates, `track`'s printed timestamps and
/// the magnetic model's decimal year all use it. `CivilCalendarTests` checks both directions against
/// Foundation's Gregorian calendar.
public enum CivilCalendar {
    /// The day number of `year`-`month`-`day` (month 1–12, day 1–31; not validated).
    public static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The year, month (1–12) and day (1–31) of day number `days`.
    public static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shifted = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shifted + 2) / 5 + 1
        let month = shifted < 10 ? shifted + 3 : shifted - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Seconds since 1970 of the instant at `timeOfDay` (UTC seconds since midnight) on the day that puts it
    /// nearest to `reference` (seconds since 1970), within 12 h: a time of 23:59:59 read at 00:00:01 is
    /// yesterday's. For a receiver's time of day without a date (NMEA before its first RMC or ZDA, a modem's
    /// GPS_RAW).
    public static func seconds(timeOfDay: Double, nearest reference: Double) -> Double {
        var seconds = (reference / 86_400).rounded(.down) * 86_400 + timeOfDay
        if seconds - reference > 43_200 { seconds -= 86_400 }
        if reference - seconds > 43_200 { seconds += 86_400 }
        return seconds
    }
}
