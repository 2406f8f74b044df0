/// One access point seen in a scan.
public struct WiFiAccessPoint: Sendable, Hashable, Codable {
    /// The BSSID, lower-case `aa:bb:cc:dd:ee:ff`.
    public var bssid: String
    /// The SSID's bytes (not necessarily UTF-8; empty for a hidden network).
    public var ssid: [UInt8]
    /// Signal, dBm.
    public var signalDBm: Int
    /// Centre frequency, MHz (0: unknown).
    public var frequency: Int
    /// Milliseconds since the access point was last seen (0: just now).
    public var ageMilliseconds: Int

    public init(bssid: String, ssid: [UInt8], signalDBm: Int, frequency: Int = 0, ageMilliseconds: Int = 0) {
        self.bssid = bssid
        self.ssid = ssid
        self.signalDBm = signalDBm
        self.frequency = frequency
        self.ageMilliseconds = ageMilliseconds
    }

    /// NetworkManager's `Strength` (percent) back to dBm. NetworkManager maps dBm to percent linearly
    /// between −100 dBm (0 %) and −40 dBm (100 %) (`nm_wifi_utils_level_to_quality`); this is its inverse.
    public static func dBm(fromStrength percent: Int) -> Int {
        let clamped = min(max(percent, 0), 100)
        return -100 + (clamped * 60 + 50) / 100
    }
}

/// Which access points may be sent to a geolocation service (docs/decisions/0025).
public enum WiFiAccessPointFilter {
    /// The minimum a geolocate request needs: one access point alone could be a phone's hotspot, and
    /// Ichnaea refuses to answer from fewer than two.
    public static let minimumCount = 2
    /// At most this many (strongest first) go in one request.
    public static let maximumCount = 20

    /// Keeps access points that are not hidden, not opted out (`_nomap`, Mozilla/Ichnaea's rule, and
    /// `_optout`, Google's), with a valid universally administered unicast BSSID; one entry per BSSID (the
    /// strongest); strongest first; at most `maximumCount`.
    public static func usable(_ scan: [WiFiAccessPoint]) -> [WiFiAccessPoint] {
        var best: [String: WiFiAccessPoint] = [:]
        for accessPoint in scan {
            guard !accessPoint.ssid.isEmpty, !accessPoint.ssid.allSatisfy({ $0 == 0 }) else { continue }
            let name = String(decoding: accessPoint.ssid, as: UTF8.self).lowercased()
            guard !name.hasSuffix("_nomap"), !name.hasSuffix("_optout") else { continue }
            guard let bssid = normalizedBSSID(accessPoint.bssid) else { continue }
            var copy = accessPoint
            copy.bssid = bssid
            if let other = best[bssid], other.signalDBm >= copy.signalDBm { continue }
            best[bssid] = copy
        }
        let sorted = best.values.sorted { ($0.signalDBm, $1.bssid) > ($1.signalDBm, $0.bssid) }
        return Array(sorted.prefix(maximumCount))
    }

    /// `AA:BB:CC:DD:EE:FF` → `aa:bb:cc:dd:ee:ff`; nil for malformed, all-zero, broadcast or multicast addresses.
    public static func normalizedBSSID(_ text: String) -> String? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 6 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            bytes.append(byte)
        }
        guard bytes.contains(where: { $0 != 0 }), bytes[0] & 0x01 == 0 else { return nil }
        return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: ":")
    }
}
