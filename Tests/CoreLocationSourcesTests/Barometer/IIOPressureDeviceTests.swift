import CoreLocationEngine
import Foundation
import Testing

@testable import CoreLocationSources

/// Fake sysfs trees laid out as the Linux drivers lay out their devices (drivers/iio/pressure/):
/// - bmp280-core.c (BMP280/BME280): a processed channel, `in_pressure_input` in kPa (IIO_VAL_FRACTIONAL,
///   printed with 9 decimals), `in_pressure_oversampling_ratio`, `in_temp_input` in m°C; BME280 adds
///   `in_humidityrelative_input`;
/// - st_pressure_core.c (LPS22HB): `in_pressure_raw` (24-bit, LSB = 1/4096 hPa) with
///   `in_pressure_scale` = 0.000024414 kPa, `in_temp_raw`/`in_temp_scale`, a shared `sampling_frequency`;
/// - dps310.c: `in_pressure_input` in kPa, `in_pressure_sampling_frequency`,
///   `in_pressure_oversampling_ratio`, `in_temp_input`;
/// - ms5611_core.c: `in_pressure_input` in kPa (IIO_VAL_INT_PLUS_MICRO, 6 decimals) and an
///   `in_pressure_scale` of 0.001000 that applies to the buffered raw samples only.
@Suite struct IIOPressureDeviceTests {
    enum Layout: String, CaseIterable, Sendable {
        case bmp280, bme280, lps22hb, dps310, ms5611

        /// Writes the device's files for a pressure in hPa.
        func write(_ fake: FakeSysfs, _ index: Int, hectopascals: Double) throws {
            try fake.write(index, "name", rawValue)
            switch self {
            case .bmp280, .bme280:
                try fake.write(index, "in_pressure_input", String(format: "%.9f", hectopascals / 10))
                try fake.write(index, "in_pressure_oversampling_ratio", "16")
                try fake.write(index, "in_pressure_oversampling_ratio_available", "1 2 4 8 16")
                try fake.write(index, "in_temp_input", "23450")
                try fake.write(index, "in_temp_oversampling_ratio", "2")
                if self == .bme280 { try fake.write(index, "in_humidityrelative_input", "45123") }
            case .lps22hb:
                try fake.write(index, "in_pressure_raw", String(Int((hectopascals * 4096).rounded())))
                try fake.write(index, "in_pressure_scale", "0.000024414")
                try fake.write(index, "in_temp_raw", "2345")
                try fake.write(index, "in_temp_scale", "10.000000")
                try fake.write(index, "sampling_frequency", "1")
                try fake.write(index, "sampling_frequency_available", "1 10 25 50 75")
            case .dps310:
                try fake.write(index, "in_pressure_input", String(format: "%.9f", hectopascals / 10))
                try fake.write(index, "in_pressure_sampling_frequency", "1")
                try fake.write(index, "in_pressure_oversampling_ratio", "1")
                try fake.write(index, "in_temp_input", "23450")
            case .ms5611:
                try fake.write(index, "in_pressure_input", String(format: "%.6f", hectopascals / 10))
                try fake.write(index, "in_pressure_scale", "0.001000")
                try fake.write(index, "in_temp_input", "23450")
                try fake.write(index, "in_temp_scale", "10.000000")
            }
        }

        /// How close the file's resolution lets the reading come, hPa: 9 decimals of kPa, 6 for the
        /// ms5611; LPS22HB's printed scale (0.000024414 for 1/40960) is 2.6 ppm low: 0.003 hPa at 1013.
        var tolerance: Double {
            switch self {
            case .lps22hb: 0.004
            case .ms5611: 1e-5
            default: 1e-8
            }
        }
    }

    @Test(arguments: Layout.allCases)
    func readsEachDriversLayout(layout: Layout) throws {
        let fake = try FakeSysfs()
        // A magnetometer first: discovery goes by channel type, not by position.
        try fake.write(0, "name", "ak8975")
        try fake.writeRaw(0, type: "magn", DeviceVector(x: 1, y: 2, z: 3), perCount: 0.003)
        try layout.write(fake, 1, hectopascals: 1013.25)
        let sensors = IIOPressureDevice.devices(sysfsRoot: fake.root)
        #expect(sensors.map(\.deviceName) == ["iio:device1"])
        let sensor = try #require(sensors.first)
        #expect(sensor.name == layout.rawValue)
        #expect(sensor.label == "iio:device1 (\(layout.rawValue))")
        #expect(abs(try sensor.readHectopascals() - 1013.25) <= layout.tolerance)
    }

    /// The ABI's general form: (raw + offset) × scale, per-channel attributes over shared ones, an
    /// indexed channel.
    @Test func rawWithOffsetAndIndexedChannel() throws {
        let fake = try FakeSysfs()
        try fake.write(0, "name", "generic")
        try fake.write(0, "in_pressure0_raw", "500")
        try fake.write(0, "in_pressure0_offset", "9632.5")
        try fake.write(0, "in_pressure_scale", "0.01")
        let sensor = try #require(IIOPressureDevice.devices(sysfsRoot: fake.root).first)
        #expect(sensor.channel == "in_pressure0")
        #expect(abs(try sensor.readHectopascals() - 1013.25) < 1e-9)
    }

    @Test func channelNames() {
        #expect(IIOPressureDevice.pressureChannel("in_pressure_input") == "in_pressure")
        #expect(IIOPressureDevice.pressureChannel("in_pressure2_raw") == "in_pressure2")
        #expect(IIOPressureDevice.pressureChannel("in_pressure_scale") == nil)
        #expect(IIOPressureDevice.pressureChannel("in_pressure_oversampling_ratio") == nil)
        #expect(IIOPressureDevice.pressureChannel("in_humidityrelative_input") == nil)
        #expect(IIOPressureDevice.pressureChannel("in_pressurex_raw") == nil)
    }

    @Test func ranges() {
        #expect(IIOPressureDevice.range(chip: "bmp280").contains(1013))
        #expect(!IIOPressureDevice.range(chip: "bmp280").contains(250))
        #expect(IIOPressureDevice.range(chip: "lps22hb").contains(260))
        #expect(IIOPressureDevice.range(chip: "ms5611").contains(15))
        #expect(!IIOPressureDevice.range(chip: "dps310").contains(1300))
    }
}
