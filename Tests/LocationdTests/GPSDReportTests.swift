import CoreLocationEngine
import CoreLocationSources
import Foundation
import Testing
import CoreLocationGPSDTestSupport
#if canImport(Glibc)
    import Glibc
#endif

@testable import LocationdCommand

/// The gpsd front door's pieces without a daemon: what it writes against what gpsd 3.22 wrote, what it reads,
/// where it listens, how it names a loopback peer's socket.
@Suite struct GPSDReportTests {
    /// A TPV /usr/sbin/gpsd 3.22 wrote for Tests/GPSDIntegrationTests/Fixtures/walk.nmea (epoch 2), verbatim.
    static let gpsdTPV = [
        #"{"class":"TPV","device":"tcp://127.0.0.1:29471","mode":3,"time":"2024-03-15T12:00:02.000Z","#,
        #""ept":0.005,"lat":48.117633333,"lon":11.516833333,"altHAE":592.5000,"altMSL":545.6000,"#,
        #""alt":545.6000,"epx":8.473,"epy":12.498,"epv":34.500,"track":18.4000,"magtrack":21.7000,"#,
        #""magvar":3.3,"speed":19.497,"climb":0.100,"epd":65.1975,"eps":25.00,"epc":69.00,"#,
        #""geoidSep":46.900,"eph":17.100,"sep":34.200}"#,
    ].joined()

    struct NotATPV: Error { var message: GPSDMessage }

    static func fields(_ line: String) throws -> [String: String] {
        // The printed text of each number, as a client parsing gpsd's output would see it.
        let body = line.dropFirst().dropLast()
        var result: [String: String] = [:]
        for pair in body.split(separator: ",") {
            let parts = pair.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            result[String(parts[0].dropFirst().dropLast())] = String(parts[1])
        }
        return result
    }

    /// gpsd's TPV through the project's gpsd source (`GPSDTPV.fix`) and back out of the front door gives gpsd's
    /// own printed values for every field a Fix carries.
    @Test func aFixFromGPSDIsWrittenAsGPSDWroteIt() throws {
        let message = try GPSDDecoder.decodeObject(Data(Self.gpsdTPV.utf8))
        guard case let .tpv(tpv) = message else { throw NotATPV(message: message) }
        let fix = try #require(tpv.fix(receivedAt: Date()))
        let ours = try Self.fields(GPSDReport.tpv(fix))
        let theirs = try Self.fields(Self.gpsdTPV)
        for key in [
            "mode", "time", "lat", "lon", "altHAE", "altMSL", "alt", "epv", "track", "speed", "eps", "epd",
            "geoidSep", "eph",
        ] {
            #expect(ours[key] == theirs[key], "\(key): \(ours[key] ?? "-") vs \(theirs[key] ?? "-")")
        }
        #expect(ours["device"] == #""locationd""#)
        // What a Fix does not carry is left out, as gpsd leaves out what its receiver does not say.
        for key in ["ept", "climb", "epc", "sep", "magtrack", "magvar"] { #expect(ours[key] == nil, "\(key)") }
        // One radius for both axes: √(epx² + epy²) = eph.
        let epx = try #require(ours["epx"].flatMap(Double.init))
        #expect(abs((2 * epx * epx).squareRoot() - 17.1) < 0.002)
    }

    /// A position without altitude (network, cell, IP) is mode 2 with no altitude fields and its error estimate.
    @Test func aPositionWithoutAltitudeIsMode2() throws {
        let fix = Fix(
            latitude: 52.5, longitude: 13.25, horizontalAccuracy: 1_000, timestamp: Date(timeIntervalSince1970: 1.5))
        let ours = try Self.fields(GPSDReport.tpv(fix))
        #expect(ours["mode"] == "2" && ours["lat"] == "52.500000000" && ours["lon"] == "13.250000000")
        #expect(ours["time"] == #""1970-01-01T00:00:01.500Z""#)
        for key in ["altHAE", "altMSL", "alt", "epv", "geoidSep", "track", "speed"] {
            #expect(ours[key] == nil, "\(key)")
        }
        #expect(ours["eph"] == String(format: "%.3f", 1_000 / GPSDTPV.horizontalConfidenceScale))
    }

    @Test func errorsAreValidJSON() throws {
        let line = GPSDReport.error("Unrecognized request '?\"\\\n'")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(
            object["class"] as? String == "ERROR" && object["message"] as? String == "Unrecognized request '?\"\\\n'")
    }

    @Test func requests() {
        #expect(GPSDRequest.parse(line: "?VERSION;") == [.version])
        #expect(
            GPSDRequest.parse(line: #"?WATCH={"enable":true,"device":"a;}"};?POLL;"#)
                == [.watch(#"{"enable":true,"device":"a;}"}"#), .poll])
        #expect(GPSDRequest.parse(line: "?WATCH;?DEVICES") == [.watch(nil), .devices])
        #expect(GPSDRequest.parse(line: "?FOO;?VERSION;") == [.invalid("Unrecognized request '?FOO'")])
        #expect(GPSDRequest.parse(line: "hello") == [.invalid("Unrecognized request 'hello'")])
        #expect(GPSDRequest.parse(line: #"?WATCH={"enable":true"#).count == 1)
        var policy = GPSDWatchPolicy()
        policy.applyEnable(["enable": true])
        #expect(policy.enable && policy.json)
        policy.applyEnable(["enable": false])
        #expect(!policy.enable && policy.json)
    }

    @Test func listenAddresses() throws {
        #expect(try GPSDListenAddress.parse("127.0.0.1:2948") == .tcp(host: "127.0.0.1", port: 2948))
        #expect(try GPSDListenAddress.parse("[::1]:2947") == .tcp(host: "::1", port: 2947))
        #expect(try GPSDListenAddress.parse("[::1]") == .tcp(host: "::1", port: 2947))
        #expect(try GPSDListenAddress.parse("localhost") == .tcp(host: "localhost", port: 2947))
        #expect(
            try GPSDListenAddress.parse("localhost:2948").sockets
                == [.tcp(host: "127.0.0.1", port: 2948), .tcp(host: "::1", port: 2948)])
        #expect(try GPSDListenAddress.parse("[::1]:2947").sockets == [.tcp(host: "::1", port: 2947)])
        #expect(try GPSDListenAddress.parse("unix:/run/gpsd.sock") == .unix(path: "/run/gpsd.sock"))
        for bad in ["::1:2947", "127.0.0.1:0", "127.0.0.1:x", "unix:relative", ":2947", "[::1"] {
            #expect(throws: GPSDListenAddress.Failure.self, "\(bad)") { try GPSDListenAddress.parse(bad) }
        }
    }

    /// `gpsd-listen` in locationd.conf, repeated, becomes one option each.
    @Test func configurationKey() throws {
        let entries = try LocationdConfig.parse(
            "gpsd-listen = 127.0.0.1:2948\ngpsd-listen = unix:/run/g.sock\n", path: "c")
        #expect(
            LocationdConfig.merge(entries, commandLine: []) == [
                "--gpsd-listen", "127.0.0.1:2948", "--gpsd-listen", "unix:/run/g.sock",
            ])
        let parsed = try Locationd.parse(LocationdConfig.merge(entries, commandLine: []))
        #expect(parsed.gpsdListen == ["127.0.0.1:2948", "unix:/run/g.sock"])
        #expect(throws: (any Error).self) { try Locationd.parse(["--gpsd-listen", "::1:2947"]) }
    }

    /// The kernel's spelling (net/ipv4/tcp_ipv4.c prints `%08X:%04X` of the address word as stored).
    @Test func procAddresses() {
        #expect(LoopbackPeer.procAddress("127.0.0.1", port: 2947) == "0100007F:0B83")
        #expect(LoopbackPeer.procAddress("::1", port: 80) == "00000000000000000000000001000000:0050")
        #expect(LoopbackPeer.procAddress("::ffff:127.0.0.1", port: 1) == "0000000000000000FFFF00000100007F:0001")
        #expect(LoopbackPeer.procAddress("not an address", port: 1) == nil)
        #expect(!LoopbackPeer.isLoopback("192.168.1.2") && LoopbackPeer.isLoopback("127.0.0.2"))
    }

    /// A connection of this process, found as the front door finds a peer: its client's socket in /proc/net/tcp
    /// (local address the client's, remote the listener's), then the process holding that inode.
    @Test func aLoopbackPeerIsFoundInProc() throws {
        let listener = try LoopbackSocket.listen()
        defer { close(listener.fd) }
        let client = try GPSDLineClient(port: Int(listener.port), reading: false)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client.fd, $0, &length) }
        }
        #expect(named == 0)
        let clientPort = Int(UInt16(bigEndian: address.sin_port))
        let identity = try #require(
            LoopbackPeer.identity(
                remoteHost: "127.0.0.1", remotePort: clientPort, localHost: "127.0.0.1", localPort: Int(listener.port)))
        #expect(identity.pid == getpid() && identity.uid == getuid())
        #expect(
            identity.kernelExecutable == (try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")))
        // The same ports the other way round name the listener's accepted side, which nobody accepted: no peer.
        #expect(
            LoopbackPeer.identity(
                remoteHost: "127.0.0.1", remotePort: Int(listener.port), localHost: "127.0.0.1", localPort: clientPort)
                == nil)
        // Not loopback: never looked up.
        #expect(
            LoopbackPeer.identity(remoteHost: "10.0.0.1", remotePort: clientPort, localHost: "10.0.0.2", localPort: 1)
                == nil)
    }
}
