#if canImport(Glibc)
import Glibc
#endif

/// Which address the IP geolocation looks up (docs/decisions/0025).
///
/// 1. A configured address (`ip:?address=…`, the user's public address as their router shows it) — used when
///    it is global; a configured private, loopback, link-local, CGNAT or reserved address gives no fix.
/// 2. Else the machine's own global addresses: IPv6 first (a global IPv6 address is the machine's own on the
///    Internet; behind IPv4 NAT the IPv4 address is private), then a global IPv4 address (a server).
/// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is the IPv4 address inside, with that address's rules.
public enum IPAddressChoice {
    public static func choose(configured: IPAddress?, interfaces: [IPAddress]) throws -> IPAddress {
        if let configured {
            let address = configured.mappedIPv4 ?? configured
            guard address.scope == .global else {
                throw NetworkSourceError(
                    .notGlobal, "\(configured) is a \(address.scope.rawValue) address: it says nothing about where we are")
            }
            return address
        }
        let global = interfaces.map { $0.mappedIPv4 ?? $0 }.filter { $0.scope == .global }
        if let v6 = global.first(where: { $0.family == .v6 }) { return v6 }
        if let v4 = global.first(where: { $0.family == .v4 }) { return v4 }
        throw NetworkSourceError(
            .noAddress,
            "no global address on this machine (behind NAT?): configure the public one (ip:…?address=A.B.C.D)")
    }

    /// The addresses of the machine's interfaces that are up (getifaddrs), in the kernel's order.
    public static func interfaceAddresses() -> [IPAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var addresses: [IPAddress] = []
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard entry.pointee.ifa_flags & UInt32(IFF_UP) != 0, let sockaddress = entry.pointee.ifa_addr else {
                continue
            }
            switch Int32(sockaddress.pointee.sa_family) {
            case AF_INET:
                let bytes = sockaddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin_addr) { Array($0) }
                }
                if let address = IPAddress(v4: bytes) { addresses.append(address) }
            case AF_INET6:
                let bytes = sockaddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
                }
                if let address = IPAddress(v6: bytes) { addresses.append(address) }
            default:
                break
            }
        }
        return addresses
    }
}
