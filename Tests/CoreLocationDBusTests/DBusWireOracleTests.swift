import CoreLocationDBus
import Foundation
import Testing

/// The marshaller against two implementations that are not ours: messages GLib wrote (in both byte orders) and
/// messages libdbus's dbus-send wrote, recorded by Fixtures/make-fixtures.py (its header says how). Our decoder
/// must read them as the values they were made from, and our encoder must write the same body bytes.
struct DBusWireOracleTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func bytes(_ values: [UInt8]) -> DBusValue { .array(elementSignature: "y", values.map { .byte($0) }) }

    /// One GLib message: what its header says and the values its body holds (as make-fixtures.py made them).
    struct Expected {
        var name: String
        var kind: DBusMessage.Kind
        var serial: UInt32
        var fields: (path: String?, interface: String?, member: String?, errorName: String?, replySerial: UInt32?)
        var destination: String?
        var sender: String?
        var body: [DBusValue]
    }

    static let glib: [Expected] = [
        Expected(
            name: "call-all-types", kind: .methodCall, serial: 7,
            fields: ("/org/corelocation/Test", "org.corelocation.Test1", "Echo", nil, nil),
            destination: "org.corelocation.Test", sender: nil,
            body: [
                .byte(200), .bool(true), .int16(-3), .uint16(65000), .int32(-70000), .uint32(4_000_000_000),
                .int64(-5_000_000_000), .uint64(18_000_000_000_000_000_000), .double(-12.5), .string("héllo ✓"),
                .objectPath("/org/freedesktop/NetworkManager/AccessPoint/7"), .signature("a{sv}"),
                .variant(.int32(1)), .structure([.int32(42), .string("answer")]),
                .dictionary(["Ssid": bytes([0x61, 0x62]), "Strength": .byte(70)]),
                .array(elementSignature: "ay", [bytes([])]), .array(elementSignature: "x", []),
            ]),
        Expected(
            name: "signal-interfaces-added", kind: .signal, serial: 1234,
            fields: ("/org/bluez", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", nil, nil),
            destination: nil, sender: ":1.42",
            body: [
                .objectPath("/org/bluez/hci0/dev_AA_BB_CC_DD_EE_FF"),
                .array(
                    elementSignature: "{sa{sv}}",
                    [
                        .dictEntry(
                            .string("org.bluez.Device1"),
                            .dictionary([
                                "Address": .string("AA:BB:CC:DD:EE:FF"),
                                "ManufacturerData": .array(
                                    elementSignature: "{qv}",
                                    [.dictEntry(.uint16(76), .variant(bytes([2, 21, 0xE2, 0xC5])))]),
                                "RSSI": .int16(-60),
                            ]))
                    ]),
            ]),
        Expected(
            name: "return-variants", kind: .methodReturn, serial: 8, fields: (nil, nil, nil, nil, 7),
            destination: ":1.3", sender: ":1.4",
            body: [
                .variant(.variant(.string("deep"))), .variant(.structure([.int32(1), .bool(false)])),
                .array(
                    elementSignature: "(yyay)",
                    [
                        .structure([.byte(0), .byte(0xFF), bytes([0x4C, 0x00, 0x02, 0x15])]),
                        .structure([.byte(2), .byte(0xFF), bytes([0xBE, 0xAC])]),
                    ]),
                .array(elementSignature: "{oa{sa{sv}}}", []), .double(.infinity),
            ]),
        Expected(
            name: "error-no-fix", kind: .error, serial: 9, fields: (nil, nil, nil, "org.corelocation.Error.NoFix", 7),
            destination: nil, sender: nil, body: [.string("no fix")]),
    ]

    static func check(_ message: DBusMessage, _ expected: Expected) {
        #expect(message.kind == expected.kind)
        #expect(message.serial == expected.serial)
        #expect(message.path == expected.fields.path)
        #expect(message.interface == expected.fields.interface)
        #expect(message.member == expected.fields.member)
        #expect(message.errorName == expected.fields.errorName)
        #expect(message.replySerial == expected.fields.replySerial)
        #expect(message.destination == expected.destination)
        #expect(message.sender == expected.sender)
        #expect(message.signature == expected.body.map(\.signature).joined())
        #expect(message.body == expected.body)
    }

    @Test(arguments: glib.map(\.name))
    func decodesGLibInBothByteOrders(_ name: String) throws {
        let expected = try #require(Self.glib.first { $0.name == name })
        for order in ["le", "be"] {
            let bytes = try Self.fixture("glib/\(name)-\(order).bin")
            #expect(bytes[0] == (order == "le" ? UInt8(ascii: "l") : UInt8(ascii: "B")))
            Self.check(try DBusMessage.decode(bytes), expected)
        }
    }

    /// Our encoder writes GLib's body bytes exactly (header fields may come in another order: GLib's is a hash
    /// table's), and a whole message of ours decodes back to the same message.
    @Test(arguments: glib.map(\.name))
    func encodesGLibsBodies(_ name: String) throws {
        let expected = try #require(Self.glib.first { $0.name == name })
        let glib = try Self.fixture("glib/\(name)-le.bin")
        let message = try DBusMessage.decode(glib)
        let body = try message.encodeBody()
        #expect(body.signature == message.signature)
        #expect(body.bytes == Array(glib.suffix(body.bytes.count)), "our body differs from GLib's")
        let bodyLength = Int(glib[4]) | Int(glib[5]) << 8 | Int(glib[6]) << 16 | Int(glib[7]) << 24
        #expect(body.bytes.count == bodyLength)
        let ours = try message.encode()
        #expect(ours.count == glib.count, "the same fields padded the same way, in another order")
        Self.check(try DBusMessage.decode(ours), expected)
    }

    @Test func decodesWhatLibdbusSent() throws {
        let ping = try DBusMessage.decode(try Self.fixture("libdbus/signal-ping.bin"))
        #expect(ping.kind == .signal)
        #expect(ping.path == "/org/corelocation/Test")
        #expect(ping.interface == "org.corelocation.Test1")
        #expect(ping.member == "Ping")
        #expect(ping.sender?.hasPrefix(":1.") == true, "the daemon adds the sender")
        let expected: [DBusValue] = [
            .string("héllo"), .int32(-5), .uint64(18_000_000_000_000_000_000), .double(2.5), .objectPath("/a/b"),
            .byte(7), .bool(true), .array(elementSignature: "n", [.int16(1), .int16(-2)]),
            .array(
                elementSignature: "{si}", [.dictEntry(.string("a"), .int32(1)), .dictEntry(.string("b"), .int32(2))]),
            .variant(.uint32(9)),
        ]
        #expect(ping.body == expected)
        let libdbus = try Self.fixture("libdbus/signal-ping.bin")
        #expect(try ping.encodeBody().bytes == Array(libdbus.suffix(try ping.encodeBody().bytes.count)))

        let call = try DBusMessage.decode(try Self.fixture("libdbus/call-get-name-owner.bin"))
        #expect(call.kind == .methodCall)
        #expect(call.destination == "org.freedesktop.DBus")
        #expect(call.member == "GetNameOwner")
        #expect(call.body == [.string("org.freedesktop.DBus")])
    }

    /// The stream reader cuts the same messages from the bytes whole, one at a time, and in 7-byte chunks.
    @Test func theFrameReaderDoesNotCareHowBytesArrive() throws {
        var stream: [UInt8] = []
        for expected in Self.glib { stream += try Self.fixture("glib/\(expected.name)-be.bin") }
        stream += try Self.fixture("libdbus/signal-ping.bin")
        for chunk in [stream.count, 1, 7] {
            var reader = DBusFrameReader()
            var messages: [DBusMessage] = []
            var start = 0
            while start < stream.count {
                reader.append(Array(stream[start..<min(start + chunk, stream.count)]))
                start += chunk
                while let message = try reader.next() { messages.append(message) }
            }
            #expect(messages.count == 5, "chunks of \(chunk)")
            #expect(
                messages.map(\.member) == [
                    "Echo", "InterfacesAdded", nil, nil, "Ping",
                ])
            #expect(reader.pending == 0)
        }
    }
}
