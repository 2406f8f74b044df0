#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address, as the IP geolocation looks it up.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    public enum Family: Sendable, Hashable { case v4, v6 }

    public let family: Family
    /// The address in network order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    public init?(_ text: String) {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            family = .v4
            bytes = withUnsafeBytes(of: v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            family = .v6
            bytes = withUnsafeBytes(of: v6) { Array($0) }
            return
        }
        return nil
    }

    public init?(v4 bytes: [UInt8]) {
        guard bytes.count == 4 else { return nil }
        family = .v4
        self.bytes = bytes
    }

    public init?(v6 bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        family = .v6
        self.bytes = bytes
    }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok = bytes.withUnsafeBytes { raw in
            inet_ntop(family == .v4 ? AF_INET : AF_INET6, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        guard ok != nil else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), else nil.
    public var mappedIPv4: IPAddress? {
        guard family == .v6, bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xff, bytes[11] == 0xff else {
            return nil
        }
        return IPAddress(v4: Array(bytes[12..<16]))
    }
}
