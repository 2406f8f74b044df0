import Foundation

extension CLLocation {
    /// Apple's `description` format, with the date rendered in `locale` and `timeZone`.
    ///
    /// Matched against output of Apple's `CLLocation.description` seen in the wild, e.g.
    /// `<+37.33446146,-122.04380955> +/- 5.00m (speed 34.77 mps / course 270.35) @ 9/13/17, 12:06:02 PM
    /// Venezuela Time`: signed latitude and longitude with 8 decimals, horizontal accuracy, speed and course
    /// with 2, then the timestamp as a `DateFormatter` with `.short` date and `.full` time styles.
    package func description(locale: Locale, timeZone: TimeZone) -> String {
        let place = String(
            format: "<%+.8f,%+.8f> +/- %.2fm (speed %.2f mps / course %.2f)",
            coordinate.latitude, coordinate.longitude, horizontalAccuracy, speed, course
        )
        return place + " @ " + describeDate(timestamp, locale: locale, timeZone: timeZone)
    }
}

/// A date as Core Location's descriptions show it: short date, full time (`10/3/24, 2:41:07 PM Pacific
/// Daylight Time` in `en_US`).
func describeDate(_ date: Date, locale: Locale, timeZone: TimeZone) -> String {
    let formatter = DateFormatter()
    formatter.locale = locale
    formatter.timeZone = timeZone
    formatter.dateStyle = .short
    formatter.timeStyle = .full
    return formatter.string(from: date)
}
