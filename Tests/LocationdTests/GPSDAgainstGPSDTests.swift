import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// Issue 39's oracle: the same NMEA recording fed once to gpsd 3.22 and once to locationd (its NMEA-over-TCP
/// source), both read by a raw gpsd client. For every time gpsd reports a fix, locationd's front door reports one
/// with the same printed `time`, `mode`, `lat`, `lon`, `altHAE`, `speed` and `track`, and its `SKY` is gpsd's,
/// byte for byte but the device (decision 0089).
@Suite(.enabled(if: gpsdPath != nil, "needs Debian package gpsd"))
struct GPSDAgainstGPSDTests {
    /// walk.nmea (10 one-second epochs), its date moved from 2024-03-15 to 2026-03-15: a live NMEA source takes a
    /// date before 2025 for a GPS week roll-over (NMEAEpochAssembler.releaseReferenceDate) and gpsd does not.
    static func epochs(_ sky: Sky = .gps) throws -> [[String]] {
        var root = URL(fileURLWithPath: #filePath)
        root.deleteLastPathComponent()
        let text = try String(
            contentsOf: root.appendingPathComponent("../GPSDIntegrationTests/Fixtures/walk.nmea"), encoding: .utf8)
        var epochs: [[String]] = []
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("$") {
            var sentence = String(line)
            if sentence.hasPrefix("$GPRMC") {
                sentence = withChecksum(
                    String(sentence.prefix { $0 != "*" }).replacingOccurrences(of: ",150324,", with: ",150326,"))
                epochs.append([])
            }
            if sky == .multi, sentence.hasPrefix("$GPGSV") {
                if sentence.hasPrefix("$GPGSV,3,1,") { epochs[epochs.count - 1] += Self.multiConstellationGSV }
                continue
            }
            epochs[epochs.count - 1].append(sentence)
        }
        return epochs
    }

    enum Sky: CaseIterable { case gps, multi }

    /// The epoch's satellites as a multi-GNSS receiver lists them: walk.nmea's eight used GPS satellites, an SBAS
    /// one, two GLONASS, two Galileo and two BeiDou (both of BeiDou's talkers), some without a signal.
    static let multiConstellationGSV = [
        "$GPGSV,3,1,9,04,61,137,45,05,33,295,40,09,22,048,38,12,70,210,47",
        "$GPGSV,3,2,9,24,15,099,31,25,41,177,44,29,55,318,46,31,12,260,29", "$GPGSV,3,3,9,46,30,200,38",
        "$GLGSV,1,1,2,70,40,100,35,81,20,050,", "$GAGSV,1,1,2,05,45,120,33,30,10,300,",
        "$GBGSV,1,1,1,12,50,060,30", "$BDGSV,1,1,1,14,51,061,31",
    ].map(withChecksum)

    static func withChecksum(_ body: String) -> String {
        let sum = body.utf8.dropFirst().reduce(UInt8(0)) { $0 ^ $1 }
        return body + String(format: "*%02X", sum)
    }

    /// The printed value of each field of a TPV line, as a client reads gpsd's text.
    static func fields(_ line: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in line.dropFirst().dropLast().split(separator: ",") {
            let parts = pair.split(separator: ":", maxSplits: 1)
            if parts.count == 2 { result[String(parts[0].dropFirst().dropLast())] = String(parts[1]) }
        }
        return result
    }

    /// A locationd reading `source`, its gpsd front door on a free loopback port (returned), every app allowed.
    static func startLocationd(_ harness: DaemonHarness, source: String) async throws -> Int {
        let port = Int(try freeLoopbackPort())
        try await harness.start(
            ["--source", source, "--gpsd-listen", "127.0.0.1:\(port)"],
            extra: ["CORELOCATION_DEFAULT_POLICY": "when-in-use"])
        return port
    }

    /// A client's SKY lines without their device (gpsd names its feed, locationd itself).
    static func skies(_ client: GPSDLineClient) -> [String] {
        client.lines.withLock { $0 }.filter { $0.contains(#""class":"SKY""#) }.map {
            $0.replacingOccurrences(of: #""device":"[^"]*","#, with: "", options: .regularExpression)
        }
    }

    @Test(arguments: Sky.allCases)
    func locationdReportsWhatGPSDReports(sky: Sky) async throws {
        let epochs = try Self.epochs(sky)
        #expect(epochs.count == 10)
        let gpsdFeed = try NMEAFeed()
        let locationdFeed = try NMEAFeed()
        defer {
            gpsdFeed.close()
            locationdFeed.close()
        }
        let gpsdPort = try freeLoopbackPort()
        let gpsd = try GPSDProcess(port: gpsdPort, feedPort: gpsdFeed.port)
        defer { gpsd.terminate() }
        try gpsd.waitUntilListening()

        let harness = try DaemonHarness()
        let port = try await Self.startLocationd(harness, source: "tcp://127.0.0.1:\(locationdFeed.port)")

        let fromGPSD = try GPSDLineClient(port: Int(gpsdPort))
        let fromLocationd = try GPSDLineClient(port: port)
        for client in [fromGPSD, fromLocationd] { client.send(#"?WATCH={"enable":true,"json":true};"# + "\n") }
        // locationd opens its source once a client wants locations; gpsd once it has a watcher (-n opens at once).
        #expect(
            await Polling.until(timeout: 10) { gpsdFeed.acceptedCount > 0 && locationdFeed.acceptedCount > 0 },
            "gpsd's feed accepted \(gpsdFeed.acceptedCount), locationd's \(locationdFeed.acceptedCount): \(harness.logText)")
        let pumped = epochs
        for feed in [gpsdFeed, locationdFeed] {
            feed.startPumping(interval: 0.2) { $0 < pumped.count ? pumped[$0] : nil }
        }
        let tpvs: @Sendable (GPSDLineClient) -> [String] = { client in
            client.lines.withLock { $0 }.filter { $0.contains(#""class":"TPV""#) }
        }
        // gpsd reports each epoch's last complete TPV once its GST closes it; both have every epoch.
        #expect(
            await Polling.until(timeout: 20) {
                Set(tpvs(fromGPSD).map { Self.fields($0)["time"] }).count >= 10 && tpvs(fromLocationd).count >= 10
            }, "gpsd: \(tpvs(fromGPSD).count), locationd: \(tpvs(fromLocationd).count) \(harness.logText)")

        // gpsd may write several TPVs for one time as sentences arrive; the last is the epoch's whole fix.
        var gpsdByTime: [String: [String: String]] = [:]
        for line in tpvs(fromGPSD) {
            let fields = Self.fields(line)
            if let time = fields["time"], let mode = fields["mode"].flatMap(Int.init), mode >= 2 {
                gpsdByTime[time] = fields
            }
        }
        var ours: [String: [String: String]] = [:]
        for line in tpvs(fromLocationd) {
            let fields = Self.fields(line)
            if let time = fields["time"] { ours[time] = fields }
        }
        #expect(gpsdByTime.count == 10)
        for (time, theirs) in gpsdByTime.sorted(by: { $0.key < $1.key }) {
            let mine = try #require(ours[time], "no TPV from locationd at \(time): \(ours.keys.sorted())")
            for key in ["mode", "lat", "lon", "altHAE", "speed", "track"] {
                #expect(
                    mine[key] == theirs[key],
                    "\(time) \(key): locationd \(mine[key] ?? "-"), gpsd \(theirs[key] ?? "-")")
            }
        }

        // Every epoch has the same satellites: each side's last SKY, without its device, is the same text.
        let theirSky = try #require(Self.skies(fromGPSD).last, "gpsd wrote no SKY")
        let mySky = try #require(Self.skies(fromLocationd).last, "locationd wrote no SKY")
        #expect(mySky == theirSky)
        #expect(
            await Polling.until(timeout: 5) { Self.skies(fromLocationd).count >= 10 },
            "\(fromLocationd.lines.withLock { $0 }.map { $0.prefix(120) })")
        // `?POLL` answers the last TPV with its SKY.
        fromLocationd.send("?POLL;\n")
        #expect(await fromLocationd.wait { $0.count("POLL") >= 1 })
        let poll = try #require(fromLocationd.objects("POLL").first)
        let polledSky = try #require((poll["sky"] as? [[String: Any]])?.first, "\(poll)")
        #expect((polledSky["satellites"] as? [Any])?.count == (sky == .gps ? 10 : 15))
    }

    /// A satellite view dates and roughly places the receiver: an app held at reduced accuracy gets its TPVs (the
    /// cell centre, mode 2) and no SKY, also in `?POLL`'s answer; the same feed gives a full-accuracy client SKYs.
    @Test func reducedAccuracyGetsNoSKY() async throws {
        let epochs = try Self.epochs()
        let feed = try NMEAFeed()
        defer { feed.close() }
        let harness = try DaemonHarness()
        let port = try await Self.startLocationd(harness, source: "tcp://127.0.0.1:\(feed.port)")
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let set = try await harness.run("locationctl", ["authorize", executable, "when-in-use", "--reduced"])
        #expect(set.status == 0, "\(set)")
        let client = try GPSDLineClient(port: port)
        client.send(#"?WATCH={"enable":true,"json":true};"# + "\n")
        #expect(await Polling.until(timeout: 10) { feed.acceptedCount > 0 })
        feed.startPumping(interval: 0.2) { $0 < epochs.count ? epochs[$0] : nil }
        // Reduced accuracy is delivered sparingly (a new cell, or its interval); a full-accuracy client's SKY
        // goes out in the same write as its TPV, so what was read with the TPV would hold it.
        #expect(await client.wait { $0.count("TPV") >= 1 }, "\(harness.logText)")
        client.send("?POLL;\n")
        #expect(await client.wait { $0.count("POLL") >= 1 })
        #expect(client.objects("TPV").allSatisfy { $0["mode"] as? Int == 2 })
        #expect(client.objects("SKY").isEmpty)
        let poll = try #require(client.objects("POLL").first)
        #expect((poll["sky"] as? [Any])?.isEmpty == true && (poll["tpv"] as? [Any])?.count == 1, "\(poll)")
    }

    /// locationd reading gpsd (`gpsd://`) passes gpsd's own SKY on: the same text but the device, one epoch behind
    /// its TPV (gpsd writes an epoch's SKY after the TPV; decision 0089).
    @Test func throughGPSDTheSKYIsGPSDs() async throws {
        let epochs = try Self.epochs(.multi)
        let feed = try NMEAFeed()
        defer { feed.close() }
        let gpsdPort = try freeLoopbackPort()
        let gpsd = try GPSDProcess(port: gpsdPort, feedPort: feed.port)
        defer { gpsd.terminate() }
        try gpsd.waitUntilListening()
        let harness = try DaemonHarness()
        let port = try await Self.startLocationd(harness, source: "gpsd://127.0.0.1:\(gpsdPort)")
        let fromGPSD = try GPSDLineClient(port: Int(gpsdPort))
        let fromLocationd = try GPSDLineClient(port: port)
        for client in [fromGPSD, fromLocationd] { client.send(#"?WATCH={"enable":true,"json":true};"# + "\n") }
        #expect(await Polling.until(timeout: 10) { feed.acceptedCount > 0 })
        // gpsd reads the feed from the start; locationd's gpsd source subscribes once its client is authorized and
        // may miss the first epochs on a loaded machine (CI once saw 5 of 10): a slower pump, and two of locationd's
        // SKYs are enough (every epoch lists the same satellites).
        feed.startPumping(interval: 0.5) { $0 < epochs.count ? epochs[$0] : nil }
        #expect(
            await Polling.until(timeout: 30) { Self.skies(fromLocationd).count >= 2 && Self.skies(fromGPSD).count >= 5 },
            "locationd: \(fromLocationd.lines.withLock { $0 }.map { $0.prefix(60) }) \(harness.logText)")
        let theirs = try #require(Self.skies(fromGPSD).last)
        #expect(Self.skies(fromLocationd).last == theirs)
        #expect(theirs.contains(#""PRN":412"#))
    }
}
