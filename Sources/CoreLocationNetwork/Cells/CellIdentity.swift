/// One serving cell: network (MCC, MNC), area (LAC for GSM/UMTS, TAC for LTE/NR) and cell id.
///
/// ModemManager gives it as the `MM_MODEM_LOCATION_SOURCE_3GPP_LAC_CI` entry of `Modem.Location.Location`: a
/// string `"MCC,MNC,LAC,CI,TAC"`, MCC and MNC in decimal (the MNC keeps its leading zero, `"01"` ≠ `"001"`),
/// LAC, CI and TAC in hexadecimal (ModemManager prints them with `%lX`); modems before ModemManager 1.10 give no
/// TAC; on LTE the LAC is 0 and the TAC carries the area. See
/// https://www.freedesktop.org/software/ModemManager/api/latest/gdbus-org.freedesktop.ModemManager1.Modem.Location.html
/// (property `Location`) and `MMLocation3gpp` in libmm-glib.
public struct CellIdentity: Sendable, Hashable, CustomStringConvertible {
    /// Nil when the modem did not say (the 3GPP string has no radio; ModemManager's `AccessTechnologies` does).
    public var radio: CellRadio?
    /// Mobile Country Code, 1…999.
    public var mcc: Int
    /// Mobile Network Code, 0…999.
    public var mnc: Int
    /// Whether the MNC has three digits (`"001"`) rather than two (`"01"`).
    public var mncHasThreeDigits: Bool
    /// Location Area Code, 0 when unknown (LTE, NR).
    public var lac: Int
    /// Cell id: 16 bits (GSM), 28 bits (UMTS: RNC + cell, LTE: eNodeB + cell), 36 bits (NR).
    public var cellID: Int
    /// Tracking Area Code, 0 when unknown (GSM, UMTS, older ModemManager).
    public var tac: Int

    public init(
        radio: CellRadio?, mcc: Int, mnc: Int, mncHasThreeDigits: Bool = false, lac: Int, cellID: Int, tac: Int = 0
    ) {
        self.radio = radio
        self.mcc = mcc
        self.mnc = mnc
        self.mncHasThreeDigits = mncHasThreeDigits
        self.lac = lac
        self.cellID = cellID
        self.tac = tac
    }

    /// The area a cell table files the cell under: the TAC on LTE/NR (or whenever the LAC is 0), else the LAC.
    public var area: Int {
        if let radio { return radio.usesTrackingArea ? (tac != 0 ? tac : lac) : (lac != 0 ? lac : tac) }
        return tac != 0 ? tac : lac
    }

    /// `"MCC,MNC,LAC,CI,TAC"` as ModemManager prints it.
    public var modemManagerString: String {
        let mncText = mncHasThreeDigits ? threeDigits(mnc) : twoDigits(mnc)
        return "\(threeDigits(mcc)),\(mncText),\(hex(lac)),\(hex(cellID)),\(hex(tac))"
    }

    public var description: String {
        "\(radio.map { "\($0) " } ?? "")\(threeDigits(mcc))-\(mncHasThreeDigits ? threeDigits(mnc) : twoDigits(mnc))"
            + " area \(hex(area)) cell \(hex(cellID))"
    }

    private func hex(_ value: Int) -> String { String(value, radix: 16, uppercase: true) }
    private func twoDigits(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
    private func threeDigits(_ value: Int) -> String { value < 10 ? "00\(value)" : value < 100 ? "0\(value)" : "\(value)" }
}
