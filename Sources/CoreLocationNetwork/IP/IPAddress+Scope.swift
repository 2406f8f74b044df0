extension IPAddress {
    /// Where an address is routed, which decides whether it says anything about the machine's location.
    public enum Scope: String, Sendable, Hashable {
        /// Routed on the Internet: an IP database may know where it is.
        case global
        /// RFC 1918 (10/8, 172.16/12, 192.168/16) and IPv6 unique-local (fc00::/7).
        case `private`
        /// 127/8, ::1.
        case loopback
        /// 169.254/16, fe80::/10.
        case linkLocal
        /// Carrier-grade NAT, 100.64/10 (RFC 6598): shared by a provider's customers.
        case carrierGradeNAT
        /// 0/8, ::, multicast, broadcast, reserved (240/4), documentation ranges: never a host on the Internet.
        case reserved
    }

    /// The scope; an IPv4-mapped IPv6 address has the scope of the IPv4 address inside.
    public var scope: Scope {
        if let inner = mappedIPv4 { return inner.scope }
        let b = bytes
        switch family {
        case .v4:
            switch (b[0], b[1]) {
            case (10, _), (172, 16...31), (192, 168): return .private
            case (127, _): return .loopback
            case (169, 254): return .linkLocal
            case (100, 64...127): return .carrierGradeNAT
            case (0, _), (224...255, _): return .reserved
            case (192, 0) where b[2] == 2, (198, 51) where b[2] == 100, (203, 0) where b[2] == 113: return .reserved
            default: return .global
            }
        case .v6:
            if b.allSatisfy({ $0 == 0 }) { return .reserved }
            if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
            if b[0] == 0xfe && b[1] & 0xc0 == 0x80 { return .linkLocal }
            if b[0] & 0xfe == 0xfc { return .private }
            if b[0] == 0xff { return .reserved }
            if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8 { return .reserved }
            // Only 2000::/3 is allocated for global unicast.
            if b[0] & 0xe0 == 0x20 { return .global }
            return .reserved
        }
    }
}
