extension MagneticModel {
    /// A calendar date (proleptic Gregorian, UTC) as NOAA's calculators turn it into a decimal year:
    /// year + (day of year − 1) / (days in the year). So 2025-01-01 is 2025.0 and 2027-07-02 is
    /// 2027.5; the time of day is ignored, as in NOAA's tools.
    ///
    /// - Returns: nil for a month outside 1...12 or a day outside the month.
    public static func decimalYear(year: Int, month: Int, day: Int) -> Double? {
        guard (1...12).contains(month), abs(year) < 1_000_000 else { return nil }
        let isLeap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        var lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        if isLeap { lengths[1] = 29 }
        guard (1...lengths[month - 1]).contains(day) else { return nil }
        let dayOfYear = lengths.prefix(month - 1).reduce(0, +) + day
        return Double(year) + Double(dayOfYear - 1) / (isLeap ? 366 : 365)
    }
}
