import CoreLocationFuzzSupport
import CoreLocationNetwork
import Foundation

// A libFuzzer target for ModemManager's 3GPP location string, `"MCC,MNC,LAC,CI[,TAC]"` (`CellIdentity(modemManager:)`;
// the `3GPP_LAC_CI` entry of `Modem.Location.Location`, docs/decisions/0035): what a modem, or a process that owns
// the ModemManager name on the system bus, hands locationd.
//
//   swift build -c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING --product CoreLocationFuzzModem3GPP
//   .build/release/CoreLocationFuzzModem3GPP -max_len=256 CORPUS_DIR        (see scripts/fuzz.sh)
//
// Input: the string's bytes (invalid UTF-8 is repaired as D-Bus would never deliver it, so that the fuzzer's time goes
// to the parser, not to the decoding).

/// Parses the text with and without a radio, and checks what no input may break: it parses or throws a
/// `CellError(.malformedIdentity)`; an identity it accepts is in the documented ranges; printed as ModemManager prints
/// it and parsed again it is the same identity (so a cell is filed under one key whatever the modem's spelling).
func fuzzOne(_ bytes: UnsafeBufferPointer<UInt8>) {
    let text = String(decoding: bytes, as: UTF8.self)
    for radio in [nil, CellRadio.gsm, .lte, .nr] as [CellRadio?] {
        let identity: CellIdentity
        do {
            identity = try CellIdentity(modemManager: text, radio: radio)
        } catch let error as CellError {
            precondition(error.code == .malformedIdentity, "threw \(error.code): \(error)")
            continue
        } catch {
            preconditionFailure("threw something other than a CellError: \(error)")
        }
        precondition((1...999).contains(identity.mcc), "MCC \(identity.mcc)")
        precondition((0...999).contains(identity.mnc), "MNC \(identity.mnc)")
        precondition(identity.mncHasThreeDigits || identity.mnc <= 99, "two-digit MNC \(identity.mnc)")
        precondition((0...CellIdentity.maximumLAC).contains(identity.lac) && identity.lac != CellIdentity.reservedLAC)
        precondition((1...CellIdentity.maximumCellID).contains(identity.cellID), "cell id \(identity.cellID)")
        precondition((0...CellIdentity.maximumTAC).contains(identity.tac), "TAC \(identity.tac)")
        precondition(identity.lac != 0 || identity.tac != 0, "neither LAC nor TAC")
        precondition(identity.area == identity.lac || identity.area == identity.tac)
        precondition(identity.radio == radio)
        let printed = identity.modemManagerString
        guard let again = try? CellIdentity(modemManager: printed, radio: radio) else {
            preconditionFailure("'\(printed)', printed from '\(text)', does not parse")
        }
        precondition(again == identity, "'\(text)' -> \(identity) -> '\(printed)' -> \(again)")
    }
}

// The entry point (CoreLocationFuzzSupport): libFuzzer's driver under -DFUZZING, a replayer of files otherwise.
@main
enum FuzzEntry {
    static func main() {
        exit(FuzzDriver.main(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
            fuzzOne(UnsafeBufferPointer(start: data, count: size))
            return 0
        })
    }
}
