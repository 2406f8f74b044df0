import CoreLocationNetwork
import Testing

/// ModemManager's 3GPP location string (`Modem.Location.Location[MM_MODEM_LOCATION_SOURCE_3GPP_LAC_CI]`):
/// "MCC,MNC,LAC,CI,TAC", MCC/MNC decimal, LAC/CI/TAC hexadecimal as ModemManager prints them (`%lX`).
struct CellIdentityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var text: String
        var mcc: Int
        var mnc: Int
        var threeDigitMNC: Bool
        var lac: Int
        var cellID: Int
        var tac: Int
        var testDescription: String { text }
    }

    @Test(arguments: [
        // GSM: LAC and a 16-bit CI, TAC 0.
        Case(text: "262,01,1A2B,4E21,0", mcc: 262, mnc: 1, threeDigitMNC: false, lac: 0x1A2B, cellID: 0x4E21, tac: 0),
        // LTE: LAC 0, a 28-bit ECI, the TAC carries the area.
        Case(text: "310,410,0,1A2D103,2B67", mcc: 310, mnc: 410, threeDigitMNC: true, lac: 0, cellID: 0x1A2D103,
            tac: 0x2B67),
        // Older ModemManager (before 1.10): four fields, no TAC.
        Case(text: "234,15,FFFD,C8", mcc: 234, mnc: 15, threeDigitMNC: false, lac: 0xFFFD, cellID: 0xC8, tac: 0),
        // MNC with a leading zero kept as three digits; lower-case hex accepted; spaces trimmed.
        Case(text: " 001,001,0,abcdef1,ffffff ", mcc: 1, mnc: 1, threeDigitMNC: true, lac: 0, cellID: 0xABCDEF1,
            tac: 0xFFFFFF),
        // NR: a 36-bit NCI.
        Case(text: "440,10,0,FFFFFFFFF,1", mcc: 440, mnc: 10, threeDigitMNC: false, lac: 0, cellID: 0xF_FFFF_FFFF,
            tac: 1),
    ])
    func parsesModemManagerStrings(_ c: Case) throws {
        let cell = try CellIdentity(modemManager: c.text)
        #expect(cell.mcc == c.mcc)
        #expect(cell.mnc == c.mnc)
        #expect(cell.mncHasThreeDigits == c.threeDigitMNC)
        #expect(cell.lac == c.lac)
        #expect(cell.cellID == c.cellID)
        #expect(cell.tac == c.tac)
        // Printed back the way ModemManager prints it, it parses to the same cell.
        #expect(try CellIdentity(modemManager: cell.modemManagerString) == cell)
    }

    @Test func areaIsTheTACOnLTEAndTheLACOnGSM() throws {
        #expect(try CellIdentity(modemManager: "310,410,0,1A2D103,2B67", radio: .lte).area == 0x2B67)
        #expect(try CellIdentity(modemManager: "262,01,1A2B,4E21,0", radio: .gsm).area == 0x1A2B)
        // A GSM cell whose modem also reports a TAC still files under its LAC.
        #expect(try CellIdentity(modemManager: "262,01,1A2B,4E21,77", radio: .gsm).area == 0x1A2B)
        // Radio unknown: the TAC when there is one.
        #expect(try CellIdentity(modemManager: "262,01,1A2B,4E21,77").area == 0x77)
    }

    @Test(arguments: [
        ("", "found 1 field"),
        ("262,01,1A2B", "found 3 field"),
        ("262,01,1A2B,4E21,0,9", "found 6 field"),
        ("262,,1A2B,4E21,0", "MNC ''"),
        ("26x,01,1A2B,4E21,0", "MCC '26x'"),
        ("2620,01,1A2B,4E21,0", "MCC '2620'"),
        ("000,01,1A2B,4E21,0", "MCC 000"),
        ("262,01,1G2B,4E21,0", "LAC '1G2B' is not hexadecimal"),
        ("262,01,-1,4E21,0", "LAC '-1' is not hexadecimal"),
        ("262,01,1A2B,0x4E21,0", "CI '0x4E21' is not hexadecimal"),
        ("262,01,FFFE,4E21,0", "LAC FFFE is reserved"),
        ("262,01,10000,4E21,0", "LAC 10000 is above FFFF"),
        ("262,01,1A2B,0,0", "cell id 0"),
        ("262,01,1A2B,1000000000,0", "CI 1000000000 is above"),
        ("262,01,0,4E21,0", "neither a LAC nor a TAC"),
        ("262,01,0,4E21,1000000", "TAC 1000000 is above"),
        ("262,01,0,4E21,zz", "TAC 'zz'"),
    ])
    func refusesMalformedStrings(_ text: String, _ expected: String) {
        do {
            let cell = try CellIdentity(modemManager: text)
            Issue.record("'\(text)' parsed as \(cell)")
        } catch let error as CellError {
            #expect(error.code == .malformedIdentity)
            #expect(error.message.contains(expected), "\(error.message)")
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}
