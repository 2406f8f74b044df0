import Foundation

/// `DaemonProtocol.encode(delivery)` (a `WireDelivery`) without `JSONEncoder`: the same bytes, written directly.
///
/// A fix reaches every client of locationd through this encoding, once per app and fix, on the thread
/// that read the receiver and before the first client's write; Foundation's encoder took ~30–45 µs of
/// that (a container per value, keys sorted per object), this ~3 µs. The output is byte for byte what
/// `JSONEncoder` writes with `DaemonProtocol`'s settings — sorted keys, non-finite numbers as the
/// strings "inf", "-inf" and "nan", a `Date` as its seconds since 2001 (`deferredToDate`), a number as
/// `description` without a trailing ".0", a nil `floor` left out — which `DeliveryJSONTests` checks
/// against the encoder on random deliveries (and the daemon-frames fuzz target on every delivery it decodes), so
/// a field added to `WireFix` or `WireDelivery` without a line here fails there.
public enum DeliveryJSON {
    public static func encode(_ delivery: WireDelivery) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + 330 * delivery.fixes.count)
        append(#"{"accuracyLimited":"#, to: &out)
        append(delivery.accuracyLimited, to: &out)
        append(#","fixes":["#, to: &out)
        for (index, fix) in delivery.fixes.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            append(fix, to: &out)
        }
        append(#"],"isRequestedLocation":"#, to: &out)
        append(delivery.isRequestedLocation, to: &out)
        append(#","isStationary":"#, to: &out)
        append(delivery.isStationary, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `WireFix`'s keys, in sorted order.
    private static func append(_ fix: WireFix, to out: inout [UInt8]) {
        append(#"{"altitude":"#, to: &out)
        append(fix.altitude, to: &out)
        append(#","course":"#, to: &out)
        append(fix.course, to: &out)
        append(#","courseAccuracy":"#, to: &out)
        append(fix.courseAccuracy, to: &out)
        append(#","ellipsoidalAltitude":"#, to: &out)
        append(fix.ellipsoidalAltitude, to: &out)
        if let floor = fix.floor {
            append(#","floor":"#, to: &out)
            out.append(contentsOf: String(floor).utf8)
        }
        append(#","horizontalAccuracy":"#, to: &out)
        append(fix.horizontalAccuracy, to: &out)
        append(#","isFromAccessory":"#, to: &out)
        append(fix.isFromAccessory, to: &out)
        if fix.isFused { append(#","isFused":true"#, to: &out) }
        append(#","isSimulated":"#, to: &out)
        append(fix.isSimulated, to: &out)
        append(#","latitude":"#, to: &out)
        append(fix.latitude, to: &out)
        append(#","longitude":"#, to: &out)
        append(fix.longitude, to: &out)
        append(#","speed":"#, to: &out)
        append(fix.speed, to: &out)
        append(#","speedAccuracy":"#, to: &out)
        append(fix.speedAccuracy, to: &out)
        append(#","timestamp":"#, to: &out)
        append(fix.timestamp.timeIntervalSinceReferenceDate, to: &out)
        append(#","verticalAccuracy":"#, to: &out)
        append(fix.verticalAccuracy, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    private static func append(_ value: Double, to out: inout [UInt8]) {
        guard value.isFinite else {
            append(value.isNaN ? #""nan""# : value > 0 ? #""inf""# : #""-inf""#, to: &out)
            return
        }
        // Swift's shortest representation that reads back to the same Double, as the encoder writes it,
        // without its trailing ".0". Its bytes are read in place: `hasSuffix` and `dropLast` on the
        // String take the Unicode paths, a dozen times a fix on the way to the first client.
        var text = value.description
        text.withUTF8 { bytes in
            let count = bytes.count
            let whole = count >= 2 && bytes[count - 2] == UInt8(ascii: ".") && bytes[count - 1] == UInt8(ascii: "0")
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[..<(whole ? count - 2 : count)]))
        }
    }

    private static func append(_ value: Bool, to out: inout [UInt8]) {
        append(value ? "true" : "false", to: &out)
    }

    private static func append(_ text: StaticString, to out: inout [UInt8]) {
        text.withUTF8Buffer { out.append(contentsOf: $0) }
    }
}
