import CoreLocationNetwork

/// One line of OpenCelliD's CSV layout (`radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,
/// updated,averageSignal`; Mozilla Location Service's dumps use the same columns), read from bytes.
///
/// Public for the fuzz target (`CoreLocationFuzzCellCSV`), which must reach it in a release build without
/// `@testable`; apps import a table with `CellTableImporter`.
public enum CellCSVRow {
    public static let header = "radio,mcc,net,area,cell,unit,lon,lat,range,samples,changeable,created,updated,averageSignal"

    /// The record, or why the line is not one.
    public static func parse(_ line: UnsafeRawBufferPointer) -> Result<CellRecord, Problem> {
        var fields: [Range<Int>] = []
        fields.reserveCapacity(14)
        var start = 0
        for index in 0..<line.count where line[index] == UInt8(ascii: ",") {
            fields.append(start..<index)
            start = index + 1
        }
        var end = line.count
        if end > start, line[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        fields.append(start..<end)
        guard fields.count >= 10 else { return .failure(.fields(fields.count)) }
        func text(_ field: Int) -> String { String(decoding: UnsafeRawBufferPointer(rebasing: line[fields[field]]), as: UTF8.self) }
        func integer(_ field: Int) -> Int? {
            let range = fields[field]
            guard !range.isEmpty, range.count <= 18 else { return nil }
            var value = 0
            for index in range {
                let byte = line[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let radio = CellRadio(csvName: text(0)) else { return .failure(.radio) }
        guard let mcc = integer(1), (1...999).contains(mcc) else { return .failure(.value("mcc")) }
        guard let mnc = integer(2), mnc <= 999 else { return .failure(.value("net")) }
        guard let area = integer(3), area <= 0xFFFF_FFFF else { return .failure(.value("area")) }
        guard let cell = integer(4), cell > 0, cell <= CellIdentity.maximumCellID else { return .failure(.value("cell")) }
        guard let lon = Double(text(6)), lon.isFinite, abs(lon) <= 180 else { return .failure(.value("lon")) }
        guard let lat = Double(text(7)), lat.isFinite, abs(lat) <= 90 else { return .failure(.value("lat")) }
        guard let range = integer(8) else { return .failure(.value("range")) }
        guard let samples = integer(9) else { return .failure(.value("samples")) }
        let updated = fields.count > 12 ? (integer(12) ?? 0) : 0
        return .success(
            CellRecord(
                radio: radio, mcc: mcc, mnc: mnc, area: area, cellID: cell, latitude: lat, longitude: lon,
                range: range, samples: samples, updated: updated))
    }

    public enum Problem: Error, Hashable, CustomStringConvertible {
        case fields(Int)
        case radio
        case value(String)

        public var description: String {
            switch self {
            case .fields(let count): "\(count) column(s), at least 10 needed"
            case .radio: "radio is not GSM, UMTS, CDMA, LTE or NR"
            case .value(let column): "bad \(column)"
            }
        }
    }
}
