import Foundation
import Testing

@testable import CoreLocationSources

@Suite struct NMEAInputTests {
    @Test(arguments: [
        ("nmea:/var/log/gps.nmea", NMEAInput.file(path: "/var/log/gps.nmea", pace: .realTime)),
        ("nmea:/tmp/a.nmea?pace=fast", .file(path: "/tmp/a.nmea", pace: .asFastAsPossible)),
        ("file:/tmp/a.nmea?speed=10", .file(path: "/tmp/a.nmea", pace: .recorded(speed: 10))),
        ("serial:/dev/ttyUSB0", .serial(path: "/dev/ttyUSB0", baud: nil)),
        ("serial:/dev/ttyACM0?baud=115200", .serial(path: "/dev/ttyACM0", baud: 115_200)),
        ("serial:/dev/ttyUSB0?baud=auto", .serial(path: "/dev/ttyUSB0", baud: nil)),
        ("tcp://192.168.1.20:10110", .tcp(host: "192.168.1.20", port: 10_110)),
        ("tcp://[::1]:2000", .tcp(host: "::1", port: 2_000)),
        ("tcp://phone.local:11123", .tcp(host: "phone.local", port: 11_123)),
        ("stdin", .stdin),
        ("-", .stdin),
    ])
    func parses(text: String, expected: NMEAInput) throws {
        #expect(try NMEAInput.parse(text) == expected)
        // The description parses back to the same input.
        #expect(try NMEAInput.parse(expected.description) == expected)
    }

    @Test(arguments: [
        "gpsd://localhost:2947", "serial:/dev/ttyUSB0?baud=1234", "tcp://host", "tcp://host:0", "tcp://:10110",
        "nmea:", "nmea:/x?speed=0", "nmea:/x?colour=red", "/dev/ttyUSB0", "",
    ])
    func rejects(text: String) {
        #expect(throws: NMEASourceError.self) { try NMEAInput.parse(text) }
        do {
            _ = try NMEAInput.parse(text)
        } catch {
            #expect(error.code == .invalidInput)
            #expect(error.message.contains("'\(text)'"))
        }
    }

    @Test func errorsNameThePathAndThePermission() {
        let denied = NMEASourceError.opening("/dev/ttyUSB0", errno: EACCES, isDevice: true)
        #expect(denied.code == .permissionDenied)
        #expect(denied.message.contains("/dev/ttyUSB0"))
        #expect(denied.message.contains("dialout"))
        let missing = NMEASourceError.opening("/dev/ttyUSB9", errno: ENOENT, isDevice: true)
        #expect(missing.code == .notFound)
        #expect(missing.message.contains("/dev/ttyUSB9"))
    }

    @Test func checkAccessReportsAMissingDevice() {
        do {
            try NMEAStreamSource.checkAccess(.serial(path: "/dev/ttyUSB-does-not-exist", baud: 9_600))
            Issue.record("no error")
        } catch {
            #expect(error.code == .notFound)
            #expect(error.message.contains("/dev/ttyUSB-does-not-exist"))
        }
    }

    @Test func checkAccessRefusesAFileAsSerialDevice() throws {
        do {
            try NMEAStreamSource.checkAccess(.serial(path: fixturePath("nmea/furuno-gt88.nmea"), baud: 9_600))
            Issue.record("no error")
        } catch {
            #expect(error.code == .notATerminal)
        }
    }
}

@Suite struct NMEABaudDetectorTests {
    @Test func locksAfterTwoValidSentences() {
        var detector = NMEABaudDetector(now: 0)
        #expect(detector.currentRate == 9_600)
        #expect(detector.observe(bytes: 70, validSentences: 1, now: 0.1) == .keep)
        #expect(detector.observe(bytes: 70, validSentences: 1, now: 0.2) == .locked(9_600))
        #expect(detector.observe(bytes: 70, validSentences: 0, now: 9) == .locked(9_600))
    }

    @Test func movesOnAfterGarbageOrSilenceAndCyclesAround() {
        var detector = NMEABaudDetector(now: 0)
        // Garbage: the byte budget runs out.
        #expect(detector.observe(bytes: NMEABaudDetector.byteBudget, validSentences: 0, now: 0.5) == .tryRate(4_800))
        // Silence: the time budget runs out.
        #expect(
            detector.observe(bytes: 0, validSentences: 0, now: 0.5 + NMEABaudDetector.timeBudget) == .tryRate(115_200))
        var now = 0.5 + NMEABaudDetector.timeBudget
        var tried = [9_600, 4_800, 115_200]
        while !detector.cycledThroughAll {
            now += NMEABaudDetector.timeBudget
            if case .tryRate(let rate) = detector.observe(bytes: 0, validSentences: 0, now: now) { tried.append(rate) }
        }
        #expect(tried == NMEABaudDetector.candidateRates + [9_600])
        // One stray valid sentence at a rate is not enough; two are.
        #expect(detector.observe(bytes: 100, validSentences: 1, now: now + 0.1) == .keep)
        #expect(detector.observe(bytes: 100, validSentences: 1, now: now + 0.2) == .locked(9_600))
    }
}
