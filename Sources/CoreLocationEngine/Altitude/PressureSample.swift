import Foundation

/// One reading of a barometer, in the engine's plain terms.
public struct PressureSample: Sendable, Hashable, Codable {
    /// Static air pressure, hectopascals (= millibars; IIO reports kilopascals, × 10).
    public var hectopascals: Double
    /// When it was measured (wall clock).
    public var timestamp: Date
    /// The device, for logs and `locationctl sources` ("iio:device0 (bmp280)").
    public var device: String

    public init(hectopascals: Double, timestamp: Date, device: String) {
        self.hectopascals = hectopascals
        self.timestamp = timestamp
        self.device = device
    }

    /// Height, metres, of this pressure in the ICAO standard atmosphere (1013.25 hPa, 15 °C at sea
    /// level, lapse 6.5 K/km; valid in the troposphere, below 11 km):
    /// h = 44 330.8 × (1 − (p / 1013.25)^0.190263). Only *differences* of these heights are meaningful
    /// on a real day; the weather moves the sea-level pressure by ±30 hPa (±250 m). One hectopascal is
    /// about 8.3 m near sea level and 10 m at 2 km.
    public var standardAtmosphereHeight: Double { Self.standardAtmosphereHeight(hectopascals) }

    public static func standardAtmosphereHeight(_ hectopascals: Double) -> Double {
        44_330.8 * (1 - pow(hectopascals / 1013.25, 0.190_263))
    }

    /// The inverse of `standardAtmosphereHeight`, for test data and benchmarks.
    public static func standardAtmospherePressure(height: Double) -> Double {
        1013.25 * pow(1 - height / 44_330.8, 1 / 0.190_263)
    }
}
