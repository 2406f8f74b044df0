import Foundation
import Testing

@testable import CoreLocationSources

@Suite struct GPSDDecoderTests {
    private func classes(_ messages: [GPSDMessage]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for message in messages {
            let name: String
            switch message {
            case .version: name = "VERSION"
            case .watch: name = "WATCH"
            case .devices: name = "DEVICES"
            case .device: name = "DEVICE"
            case .tpv: name = "TPV"
            case .sky: name = "SKY"
            case .gst: name = "GST"
            case .att: name = "ATT"
            case .error: name = "ERROR"
            case .poll: name = "POLL"
            case .unknown(let className): name = "?" + className
            }
            counts[name, default: 0] += 1
        }
        return counts
    }

    @Test func decodesRealGPSDOutput() throws {
        var decoder = GPSDDecoder()
        let messages = decoder.feed(try recordedGPSDOutput())
        // walk.nmea has 10 epochs; gpsd 3.22 reports the first one twice.
        #expect(classes(messages) == ["VERSION": 1, "DEVICES": 1, "WATCH": 1, "TPV": 11, "SKY": 10, "GST": 10])
        #expect(decoder.invalidLines == 0)
        #expect(decoder.leftover == 0)
        guard case .version(let version) = messages.first else {
            Issue.record("VERSION first")
            return
        }
        #expect(version.release == "3.22")
        #expect(version.proto_major == 3)
        let sky = try #require(messages.compactMap { if case .sky(let sky) = $0 { sky } else { nil } }.first)
        // GSV lists 10 satellites, GSA uses 8 of them (walk.nmea).
        #expect(sky.inView == 10)
        #expect(sky.used == 8)
        #expect(sky.hdop == 0.9)
        let gst = try #require(messages.compactMap { if case .gst(let gst) = $0 { gst } else { nil } }.first)
        #expect(gst.lat == 1.2 && gst.lon == 0.9 && gst.alt == 2.1)
    }

    /// Any chunking gives the same messages (ByteToMessageDecoderVerifier's idea).
    @Test func chunkingDoesNotMatter() throws {
        let bytes = try recordedGPSDOutput()
        var whole = GPSDDecoder()
        let expected = whole.feed(bytes)
        var dripped = GPSDDecoder()
        var messages: [GPSDMessage] = []
        for byte in bytes { messages += dripped.feed([byte]) }
        #expect(messages == expected)
        var chunked = GPSDDecoder()
        messages = []
        var index = 0
        var size = 1
        while index < bytes.count {
            let end = min(bytes.count, index + size)
            messages += chunked.feed(bytes[index..<end])
            index = end
            size = size * 3 % 977 + 1
        }
        #expect(messages == expected)
    }

    @Test func invalidLinesAreCountedAndSkipped() {
        var decoder = GPSDDecoder()
        let text = """
            {"class":"TPV","mode":3,"lat":1.0,"lon":2.0}
            {"class":"TPV","device":"/dev/ttyUSB0","mode":3,"time":"2021-03-02T10:00:00.000Z","lat":51.
            not json at all
            {"class":"TPV","mode":"three"}
            {"class":"AIS","type":1,"mmsi":244670316}

            {"class":"ERROR","message":"Unrecognized request '?FOO'"}
            {"class":"TPV","mode":1}

            """
        let messages = decoder.feed(Array(text.utf8))
        #expect(decoder.invalidLines == 3)
        #expect(decoder.unknownClasses == 1)
        #expect(messages.count == 4)
        #expect(messages[1] == .unknown(className: "AIS"))
        #expect(messages[2] == .error(GPSDErrorReport(message: "Unrecognized request '?FOO'")))
        guard case .tpv(let noFix) = messages[3] else {
            Issue.record("TPV expected")
            return
        }
        #expect(noFix.mode == 1)
        #expect(noFix.lat == nil && noFix.eph == nil && noFix.time == nil)
    }

    @Test func overlongLinesAreDroppedWholeAndTheStreamGoesOn() {
        var decoder = GPSDDecoder()
        var bytes = Array(repeating: UInt8(ascii: "x"), count: GPSDDecoder.maximumLineLength + 10)
        bytes += Array("tail\n{\"class\":\"WATCH\",\"enable\":true}\n".utf8)
        let messages = decoder.feed(bytes)
        #expect(decoder.invalidLines == 1)
        #expect(messages == [.watch(GPSDWatch(enable: true, json: nil, device: nil))])
    }

    @Test func decodesTheOtherClasses() throws {
        var decoder = GPSDDecoder()
        let text = """
            {"class":"DEVICE","path":"/dev/ttyACM0","driver":"u-blox","activated":"2024-03-15T12:00:00.000Z","bps":9600,"cycle":1.00}
            {"class":"ATT","device":"/dev/ttyUSB1","time":"2024-03-15T12:00:00.000Z","heading":14223.00,"pitch":169.00,"roll":-43.00}
            {"class":"POLL","time":"2024-03-15T12:00:00.000Z","active":1,"tpv":[{"class":"TPV","mode":2,"lat":48.0,"lon":11.0}],"sky":[{"class":"SKY","uSat":5,"nSat":9}]}

            """
        let messages = decoder.feed(Array(text.utf8))
        #expect(decoder.invalidLines == 0)
        #expect(messages.count == 3)
        guard case .device(let device) = messages[0], case .att(let att) = messages[1],
            case .poll(let poll) = messages[2]
        else {
            Issue.record("DEVICE, ATT, POLL expected")
            return
        }
        #expect(device.path == "/dev/ttyACM0" && device.bps == 9600 && device.activated != nil)
        #expect(att.heading == 14223 && att.roll == -43)
        #expect(poll.tpv?.first?.mode == 2)
        #expect(poll.sky?.first?.used == 5 && poll.sky?.first?.inView == 9)
    }
}
