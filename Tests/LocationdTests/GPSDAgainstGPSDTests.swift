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

    /// gpsd 3.22 and locationd, each reading its own feed (to be fed the same epochs), each with a raw client that
    /// has sent `watch`.
    struct SideBySide {
        let gpsdFeed: NMEAFeed
        let locationdFeed: NMEAFeed
        let gpsd: GPSDProcess
        let harness: DaemonHarness
        let fromGPSD: GPSDLineClient
        let fromLocationd: GPSDLineClient

        func close() {
            gpsd.terminate()
            gpsdFeed.close()
            locationdFeed.close()
        }

        func pump(_ epochs: [[String]], interval: Double) {
            for feed in [gpsdFeed, locationdFeed] {
                feed.startPumping(interval: interval) { $0 < epochs.count ? epochs[$0] : nil }
            }
        }
    }

    /// gpsd 3.22 on a free port, reading a feed of its own, listening.
    static func gpsdReadingAFeed() throws -> (NMEAFeed, GPSDProcess) {
        let feed = try NMEAFeed()
        let gpsd = try GPSDProcess(port: try freeLoopbackPort(), feedPort: feed.port)
        try gpsd.waitUntilListening()
        return (feed, gpsd)
    }

    static func sideBySide(watch: String) async throws -> SideBySide {
        let (gpsdFeed, gpsd) = try gpsdReadingAFeed()
        let locationdFeed = try NMEAFeed()
        let harness = try DaemonHarness()
        let port = try await startLocationd(harness, source: "tcp://127.0.0.1:\(locationdFeed.port)")
        let pair = SideBySide(
            gpsdFeed: gpsdFeed, locationdFeed: locationdFeed, gpsd: gpsd, harness: harness,
            fromGPSD: try GPSDLineClient(port: Int(gpsd.port)), fromLocationd: try GPSDLineClient(port: port))
        for client in [pair.fromGPSD, pair.fromLocationd] { client.send("?WATCH=" + watch + ";\n") }
        return pair
    }

    @Test(arguments: Sky.allCases)
    func locationdReportsWhatGPSDReports(sky: Sky) async throws {
        let epochs = try Self.epochs(sky)
        #expect(epochs.count == 10)
        let pair = try await Self.sideBySide(watch: #"{"enable":true,"json":true}"#)
        defer { pair.close() }
        let (gpsdFeed, locationdFeed, harness) = (pair.gpsdFeed, pair.locationdFeed, pair.harness)
        let (fromGPSD, fromLocationd) = (pair.fromGPSD, pair.fromLocationd)
        // locationd opens its source once a client wants locations; gpsd once it has a watcher (-n opens at once).
        #expect(
            await Polling.until(timeout: 10) { gpsdFeed.acceptedCount > 0 && locationdFeed.acceptedCount > 0 },
            "gpsd's feed accepted \(gpsdFeed.acceptedCount), locationd's \(locationdFeed.acceptedCount): \(harness.logText)")
        pair.pump(epochs, interval: 0.2)
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

    /// `?WATCH={"enable":true,"nmea":true}` (what `gpspipe -r` sends): gpsd relays its NMEA receiver's sentences, and
    /// so does locationd from its live NMEA source (decision 0090). Both are fed the same epochs, multi-GNSS ones with
    /// talkers and proprietary-free sentences gpsd passes on unparsed; each client's sentences are the same lines in
    /// the same order, and they are the fed ones. Neither writes a TPV: `json` stays false.
    @Test func nmeaWatchersGetTheSentencesGPSDRelays() async throws {
        let epochs = try Self.epochs(.multi)
        let pair = try await Self.sideBySide(watch: #"{"enable":true,"nmea":true}"#)
        defer { pair.close() }
        let (gpsdFeed, locationdFeed, harness) = (pair.gpsdFeed, pair.locationdFeed, pair.harness)
        let (fromGPSD, fromLocationd) = (pair.fromGPSD, pair.fromLocationd)
        #expect(
            await Polling.until(timeout: 10) {
                gpsdFeed.acceptedCount > 0 && locationdFeed.acceptedCount > 0 && fromGPSD.objects("WATCH").count > 0
                    && fromLocationd.objects("WATCH").count > 0
            }, "\(harness.logText)")
        let watch = try #require(fromLocationd.objects("WATCH").first)
        #expect(watch["nmea"] as? Bool == true && watch["json"] as? Bool == false, "\(watch)")
        // locationd opens its source once the app is authorized, in the same step as it starts relaying: an accepted
        // feed means the relay is on.
        pair.pump(epochs, interval: 0.2)
        let fed = epochs.flatMap { $0 }
        let sentences: @Sendable (GPSDLineClient) -> [String] = { client in
            client.lines.withLock { $0 }.filter { $0.hasPrefix("$") }
        }
        #expect(
            await Polling.until(timeout: 20) {
                sentences(fromGPSD).count >= fed.count && sentences(fromLocationd).count >= fed.count
            }, "gpsd: \(sentences(fromGPSD).count), locationd: \(sentences(fromLocationd).count) of \(fed.count)")
        #expect(sentences(fromLocationd) == sentences(fromGPSD))
        #expect(sentences(fromLocationd) == fed)
        #expect(fromLocationd.objects("TPV").isEmpty && fromGPSD.objects("TPV").isEmpty)
    }

    /// Where no receiver's sentences can be relayed (here the simulated drive), a client watching with `nmea` gets
    /// sentences made from its fixes (decision 0090): RMC and GSA. The oracle is gpsd 3.22 reading them as an NMEA
    /// receiver: for each of locationd's TPVs, gpsd's TPV of the same time is a 2D fix with the same position
    /// (1e-8°), speed and track, to the sentences' precision.
    @Test func madeSentencesAreReadBackByGPSD() async throws {
        let harness = try DaemonHarness()
        let port = Int(try freeLoopbackPort())
        try await harness.start(
            ["--simulate", "drive", "--simulate-speed", "10", "--gpsd-listen", "127.0.0.1:\(port)"],
            extra: ["CORELOCATION_DEFAULT_POLICY": "when-in-use"])
        let fromLocationd = try GPSDLineClient(port: port)
        fromLocationd.send(#"?WATCH={"enable":true,"json":true,"nmea":true};"# + "\n")
        // The drive's fixes are 10 s apart: at 10× one a second.
        #expect(await fromLocationd.wait(timeout: 30) { $0.count("TPV") >= 5 }, "\(harness.logText)")
        let watch = try #require(fromLocationd.objects("WATCH").first)
        #expect(watch["nmea"] as? Bool == true, "\(watch)")
        let made = fromLocationd.lines.withLock { $0 }.filter { $0.hasPrefix("$") }
        let kinds = ["$GPRMC,", "$GPGSA,"]
        #expect(made.count >= 10 && made.allSatisfy { line in kinds.contains { line.hasPrefix($0) } }, "\(made)")

        let (feed, gpsd) = try Self.gpsdReadingAFeed()
        defer {
            gpsd.terminate()
            feed.close()
        }
        let gpsdPort = gpsd.port
        let fromGPSD = try GPSDLineClient(port: Int(gpsdPort))
        fromGPSD.send(#"?WATCH={"enable":true,"json":true};"# + "\n")
        #expect(await Polling.until(timeout: 10) { feed.acceptedCount > 0 && fromGPSD.objects("WATCH").count > 0 })
        // An epoch is an RMC and its GSA.
        let epochs = stride(from: 0, to: made.count - 1, by: 2).map { Array(made[$0...$0 + 1]) }
        feed.startPumping(interval: 0.1) { $0 < epochs.count ? epochs[$0] : nil }
        var ours: [String: [String: Any]] = [:]
        for tpv in fromLocationd.objects("TPV") { if let time = tpv["time"] as? String { ours[time] = tpv } }
        #expect(await Polling.until(timeout: 20) {
            Set(
                fromGPSD.objects("TPV").filter { ($0["mode"] as? Int ?? 0) >= 2 }.compactMap { $0["time"] as? String }
                    .filter { ours[$0] != nil }
            ).count >= 3
        }, "gpsd: \(fromGPSD.lines.withLock { $0 })")
        // gpsd may write several TPVs for one time as an epoch's sentences arrive; the last with a fix is the epoch's.
        var gpsdByTime: [String: [String: Any]] = [:]
        for tpv in fromGPSD.objects("TPV") {
            if let time = tpv["time"] as? String, (tpv["mode"] as? Int ?? 0) >= 2 { gpsdByTime[time] = tpv }
        }
        var compared = 0
        for (time, theirs) in gpsdByTime {
            guard let mine = ours[time] else { continue }
            #expect(theirs["mode"] as? Int == 2, "\(time): \(theirs)")
            compared += 1
            for (key, tolerance) in [("lat", 1e-8), ("lon", 1e-8), ("speed", 0.002), ("track", 0.001)] {
                let a = try #require(mine[key] as? Double, "\(key) in \(mine)")
                let b = try #require(theirs[key] as? Double, "\(key) in \(theirs)")
                #expect(abs(a - b) <= tolerance, "\(time) \(key): locationd \(a), gpsd \(b)")
            }
        }
        #expect(compared >= 3)
    }

    /// A satellite view dates and roughly places the receiver: an app held at reduced accuracy gets its TPVs (the
    /// cell centre, mode 2) and no SKY, also in `?POLL`'s answer, and not the receiver's sentences but ones made from the
    /// cell centre; the same feed gives a full-accuracy client SKYs.
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
        client.send(#"?WATCH={"enable":true,"json":true,"nmea":true};"# + "\n")
        #expect(await Polling.until(timeout: 10) { feed.acceptedCount > 0 })
        feed.startPumping(interval: 0.2) { $0 < epochs.count ? epochs[$0] : nil }
        // Reduced accuracy is delivered sparingly (a new cell, or its interval); a full-accuracy client's SKY
        // goes out in the same write as its TPV, so what was read with the TPV would hold it.
        #expect(await client.wait { $0.count("TPV") >= 1 }, "\(harness.logText)")
        client.send("?POLL;\n")
        #expect(await client.wait { $0.count("POLL") >= 1 })
        #expect(client.objects("TPV").allSatisfy { $0["mode"] as? Int == 2 })
        #expect(client.objects("SKY").isEmpty)
        // Nor the receiver's sentences, which carry its own position: sentences made from the cell centre it is
        // given (decision 0090), the RMC's position that of a TPV.
        let made = client.lines.withLock { $0 }.filter { $0.hasPrefix("$") }
        #expect(made.allSatisfy { $0.hasPrefix("$GP") } && made.contains { $0.hasPrefix("$GPGSA,A,2,") }, "\(made)")
        let tpv = try #require(client.objects("TPV").first)
        let rmc = try #require(made.first { $0.hasPrefix("$GPRMC,") }).split(separator: ",", omittingEmptySubsequences: false)
        let degrees: (Substring, Int, Substring) -> Double = { text, digits, hemisphere in
            let value = (Double(text.prefix(digits)) ?? .nan) + (Double(text.dropFirst(digits)) ?? .nan) / 60
            return hemisphere == "S" || hemisphere == "W" ? -value : value
        }
        #expect(abs(degrees(rmc[3], 2, rmc[4]) - (tpv["lat"] as? Double ?? 0)) < 1e-8, "\(rmc) \(tpv)")
        #expect(abs(degrees(rmc[5], 3, rmc[6]) - (tpv["lon"] as? Double ?? 0)) < 1e-8, "\(rmc) \(tpv)")
        let poll = try #require(client.objects("POLL").first)
        #expect((poll["sky"] as? [Any])?.isEmpty == true && (poll["tpv"] as? [Any])?.count == 1, "\(poll)")
    }

    /// locationd reading gpsd (`gpsd://`) passes gpsd's own SKY on: the same text but the device, one epoch behind
    /// its TPV (gpsd writes an epoch's SKY after the TPV; decision 0089).
    @Test func throughGPSDTheSKYIsGPSDs() async throws {
        let epochs = try Self.epochs(.multi)
        let (feed, gpsd) = try Self.gpsdReadingAFeed()
        defer {
            gpsd.terminate()
            feed.close()
        }
        let gpsdPort = gpsd.port
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
