import Foundation

extension CellIdentity {
    /// The largest LAC (16 bits, 3GPP TS 24.008 §10.5.1.3).
    public static let maximumLAC = 0xFFFF
    /// The LAC 3GPP reserves for "no valid LAI" (TS 24.008 §10.5.1.3, TS 23.003 §4.1): never a real area.
    public static let reservedLAC = 0xFFFE
    /// The largest TAC (24 bits on NR; 16 on LTE).
    public static let maximumTAC = 0xFF_FFFF
    /// The largest cell id (36 bits, NR; 28 on UMTS/LTE).
    public static let maximumCellID = 0xF_FFFF_FFFF

    /// Reads ModemManager's 3GPP location string `"MCC,MNC,LAC,CI[,TAC]"` (LAC, CI, TAC in hex).
    ///
    /// - Throws: `CellError(.malformedIdentity)` naming what is wrong: too few or too many fields, a field
    ///   that is not decimal (MCC, MNC) or hexadecimal (LAC, CI, TAC), MCC 000 (ModemManager's "unknown"), a LAC
    ///   of FFFE (reserved) or above FFFF, a cell id of 0 (not registered) or beyond 36 bits, neither LAC nor TAC.
    public init(modemManager text: String, radio: CellRadio? = nil) throws {
        func fail(_ why: String) -> CellError {
            CellError(.malformedIdentity, "3GPP location '\(text.prefix(80))': \(why)")
        }
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard fields.count == 4 || fields.count == 5 else {
            throw fail("expected MCC,MNC,LAC,CI[,TAC], found \(fields.count) field(s)")
        }
        func decimal(_ field: String, _ name: String, digits: ClosedRange<Int>) throws -> Int {
            guard digits.contains(field.count), field.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(field)
            else { throw fail("\(name) '\(field)' is not \(digits.lowerBound)-\(digits.upperBound) decimal digits") }
            return value
        }
        func hex(_ field: String, _ name: String, maximum: Int) throws -> Int {
            guard (1...15).contains(field.count), field.allSatisfy(\.isHexDigit), let value = Int(field, radix: 16) else {
                throw fail("\(name) '\(field)' is not hexadecimal")
            }
            guard value <= maximum else {
                throw fail("\(name) \(field) is above \(String(maximum, radix: 16, uppercase: true))")
            }
            return value
        }
        let mcc = try decimal(fields[0], "MCC", digits: 3...3)
        guard mcc != 0 else { throw fail("MCC 000 (unknown network)") }
        let mnc = try decimal(fields[1], "MNC", digits: 2...3)
        let lac = try hex(fields[2], "LAC", maximum: Self.maximumLAC)
        guard lac != Self.reservedLAC else { throw fail("LAC FFFE is reserved (no valid location area)") }
        let cellID = try hex(fields[3], "CI", maximum: Self.maximumCellID)
        guard cellID != 0 else { throw fail("cell id 0 (not registered)") }
        let tac = try fields.count == 5 ? hex(fields[4], "TAC", maximum: Self.maximumTAC) : 0
        guard lac != 0 || tac != 0 else { throw fail("neither a LAC nor a TAC") }
        self.init(
            radio: radio, mcc: mcc, mnc: mnc, mncHasThreeDigits: fields[1].count == 3, lac: lac, cellID: cellID,
            tac: tac)
    }
}
