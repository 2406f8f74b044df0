import CoreLocationGPSDTestSupport
import Foundation
import Testing

/// Issue 39's oracle: the same NMEA recording fed once to gpsd 3.22 and once to locationd (its NMEA-over-TCP
/// source), both read by a raw gpsd client. For every time gpsd reports a fix, locationd's front door reports one
/// with the same printed `time`, `mode`, `lat`, `lon`, `altHAE`, `speed` and `track`.
@Suite(.enabled(if: gpsdPath != nil, "needs Debian package gpsd"))
struct GPSDAgainstGPSDTests {
    /// walk.nmea (10 one-second epochs), its date moved from 2024-03-15 to 2026-03-15: a live NMEA source takes a
    /// date before 2025 for a GPS week roll-over (NMEAEpochAssembler.releaseReferenceDate) and gpsd does not.
    static func epochs() throws -> [[String]] {
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
            epochs[epochs.count - 1].append(sentence)
        }
        return epochs
    }

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

    @Test func locationdReportsWhatGPSDReports() async throws {
        let epochs = try Self.epochs()
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
        let port = Int(try freeLoopbackPort())
        try await harness.start(
            ["--source", "tcp://127.0.0.1:\(locationdFeed.port)", "--gpsd-listen", "127.0.0.1:\(port)"],
            extra: ["CORELOCATION_DEFAULT_POLICY": "when-in-use"])

        let fromGPSD = try GPSDLineClient(port: Int(gpsdPort))
        let fromLocationd = try GPSDLineClient(port: port)
        for client in [fromGPSD, fromLocationd] { client.send(#"?WATCH={"enable":true,"json":true};"# + "\n") }
        // locationd opens its source once a client wants locations; gpsd once it has a watcher (-n opens at once).
        #expect(await Polling.until(timeout: 10) { gpsdFeed.acceptedCount > 0 && locationdFeed.acceptedCount > 0 })
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
    }
}
