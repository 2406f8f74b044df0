import CoreLocationNetwork
import Testing

@Suite struct IPAddressChoiceTests {
    @Test(arguments: [
        ("10.1.2.3", IPAddress.Scope.private), ("172.16.0.1", .private), ("172.31.255.255", .private),
        ("172.32.0.1", .global), ("192.168.1.1", .private), ("127.0.0.1", .loopback), ("169.254.3.4", .linkLocal),
        ("100.64.0.1", .carrierGradeNAT), ("100.127.255.254", .carrierGradeNAT), ("100.128.0.1", .global),
        ("0.1.2.3", .reserved), ("224.0.0.1", .reserved), ("255.255.255.255", .reserved), ("81.2.69.160", .global),
        ("::1", .loopback), ("::", .reserved), ("fe80::1", .linkLocal), ("fd12:3456::1", .private),
        ("fc00::1", .private), ("ff02::1", .reserved), ("2001:db8::1", .reserved), ("2a02:cf40::", .global),
        ("::ffff:192.168.1.1", .private), ("::ffff:100.64.1.1", .carrierGradeNAT), ("::ffff:81.2.69.160", .global),
    ])
    func scopes(_ text: String, _ scope: IPAddress.Scope) throws {
        #expect(try #require(IPAddress(text)).scope == scope)
    }

    @Test func parsesAndPrints() throws {
        #expect(IPAddress("81.2.69.160")?.description == "81.2.69.160")
        #expect(IPAddress("2A02:CF40:0::")?.description == "2a02:cf40::")
        #expect(IPAddress("::ffff:81.2.69.160")?.mappedIPv4 == IPAddress("81.2.69.160"))
        for bad in ["", "1.2.3", "1.2.3.256", "example.org", "::ffff::1", " 1.2.3.4"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
    }

    @Test func aConfiguredAddressMustBeGlobal() throws {
        let london = try #require(IPAddress("81.2.69.160"))
        #expect(try IPAddressChoice.choose(configured: london, interfaces: []) == london)
        // A mapped address is looked up as the IPv4 address inside.
        #expect(try IPAddressChoice.choose(configured: IPAddress("::ffff:81.2.69.160"), interfaces: []) == london)
        for text in ["192.168.1.10", "100.64.7.7", "127.0.0.1", "fe80::1", "::ffff:10.0.0.1"] {
            expectError(.notGlobal, "\(text)") {
                try IPAddressChoice.choose(configured: IPAddress(text), interfaces: [london])
            }
        }
    }

    @Test func theMachinesGlobalIPv6ComesFirst() throws {
        let interfaces = ["127.0.0.1", "192.168.1.7", "81.2.69.160", "::1", "fe80::1", "fd00::7", "2a02:cf40::1"]
            .compactMap(IPAddress.init)
        #expect(try IPAddressChoice.choose(configured: nil, interfaces: interfaces) == IPAddress("2a02:cf40::1"))
        #expect(try IPAddressChoice.choose(configured: nil, interfaces: Array(interfaces.prefix(3))) == IPAddress("81.2.69.160"))
        expectError(.noAddress) {
            try IPAddressChoice.choose(
                configured: nil, interfaces: ["10.0.0.2", "100.64.0.9", "fe80::2", "::1"].compactMap(IPAddress.init))
        }
        expectError(.noAddress) { try IPAddressChoice.choose(configured: nil, interfaces: []) }
    }
}
