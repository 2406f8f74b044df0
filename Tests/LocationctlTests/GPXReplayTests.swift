import Foundation
import Testing

@Suite struct GPXReplayTests {
    @Test func replaysAWrittenTrackWithItsRecordedSpeed() async throws {
        let sandbox = try Sandbox()
        // Three points on the equator 0.001° apart, 10 s apart. Along the equator the geodesic is
        // the equator itself: a·Δλ = 6 378 137 m × 0.001 × π/180 = 111.3195 m, so 11.13195 m/s.
        let path = try sandbox.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="LocationctlTests" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><trkseg>
            <trkpt lat="0.000" lon="0.000"><time>2024-01-01T00:00:00Z</time></trkpt>
            <trkpt lat="0.000" lon="0.001"><time>2024-01-01T00:00:10Z</time></trkpt>
            <trkpt lat="0.000" lon="0.002"><time>2024-01-01T00:00:20Z</time></trkpt>
            </trkseg></trk>
            </gpx>

            """,
            to: "equator.gpx"
        )
        let run = try await sandbox.locationctl("track", "--simulate", path, "--speed", "max", "--format", "json")
        #expect(run.status == 0, "\(run)")
        let objects = try run.lines.map(jsonObject)
        #expect(objects.count == 3, "\(run)")
        let expectedSpeed = 6_378_137 * 0.001 * Double.pi / 180 / 10
        for (index, object) in objects.enumerated() {
            #expect(object["latitude"] as? Double == 0)
            #expect(object["longitude"] as? Double == 0.001 * Double(index))
            let speed = try #require(object["speed"] as? Double)
            #expect(abs(speed - expectedSpeed) < 1e-3, "speed \(speed), expected \(expectedSpeed)")
            #expect(object["simulated"] as? Bool == true)
        }
    }

    /// "As fast as possible" keeps the recorded timing in the timestamps, so a GPX written by
    /// `track --speed max` replays with the same derived speeds as the route it came from.
    @Test func aMaxSpeedRecordingKeepsItsTiming() async throws {
        let sandbox = try Sandbox()
        let original = try await sandbox.locationctl("track", "--simulate", "drive", "--speed", "max", "--format", "csv")
        let recorded = try await sandbox.locationctl("track", "--simulate", "drive", "--speed", "max", "--format", "gpx")
        #expect(original.status == 0 && recorded.status == 0, "\(original) \(recorded)")
        let path = try sandbox.write(recorded.stdout, to: "recorded.gpx")
        let replayed = try await sandbox.locationctl("track", "--simulate", path, "--speed", "max", "--format", "csv")
        #expect(replayed.status == 0, "\(replayed)")
        let before = try CSVRow.parse(original.stdout).rows
        let after = try CSVRow.parse(replayed.stdout).rows
        #expect(before.count == after.count && before.count >= 100)
        let speedsBefore = before.compactMap { $0.fields["speed"].flatMap(Double.init) }
        let speedsAfter = after.compactMap { $0.fields["speed"].flatMap(Double.init) }
        #expect(speedsAfter.filter { $0 > 0 }.count > speedsAfter.count / 2)
        // GPX keeps times to the millisecond and positions to full precision: speeds agree closely.
        for (a, b) in zip(speedsBefore, speedsAfter) {
            #expect(abs(a - b) < 0.01, "speed \(a) became \(b)")
        }
    }

    @Test func aCoordinateOutOfRangeNamesItsLine() async throws {
        let sandbox = try Sandbox()
        let path = try sandbox.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="LocationctlTests" xmlns="http://www.topografix.com/GPX/1/1">
            <trk><trkseg>
            <trkpt lat="0.000" lon="0.000"><time>2024-01-01T00:00:00Z</time></trkpt>
            <trkpt lat="95.000" lon="0.001"><time>2024-01-01T00:00:10Z</time></trkpt>
            </trkseg></trk>
            </gpx>

            """,
            to: "out-of-range.gpx"
        )
        let run = try await sandbox.locationctl("track", "--simulate", path, "--speed", "max", "--format", "json")
        #expect(run.status == 64, "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("line 5"), "\(run)")
        #expect(run.stderr.contains("lat 95"), "\(run)")
        #expect(run.stderr.contains("outside"), "\(run)")
    }

    @Test func brokenXMLNamesItsLine() async throws {
        let sandbox = try Sandbox()
        let path = try sandbox.write(
            """
            <gpx><trk><trkseg>
            <trkpt lat="0" lon="0"><time>2024-01-01T00:00:00Z</time></trkpt>
            <trkpt lat="0" lon="0.001">
            </trkseg></trk></gpx>

            """,
            to: "broken.gpx"
        )
        let run = try await sandbox.locationctl("track", "--simulate", path, "--speed", "max")
        #expect(run.status == 64, "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("line 4"), "\(run)")
        #expect(run.stderr.contains("not well-formed"), "\(run)")
    }

    @Test func anEncodingTheParserDoesNotReadExits65() async throws {
        // The fuzzer's reproducer, shortened: libxml2 crashed on a UTF-7 declaration (decision 0021).
        let sandbox = try Sandbox()
        let path = try sandbox.write(
            """
            <?xml version="1.0" encoding="UTF-7"?>
            <gpx version="1.0"><wpt lat="45.772163216" lon="14.357652292"><name>001</name></wpt></gpx>

            """,
            to: "utf7.gpx"
        )
        let run = try await sandbox.locationctl("track", "--simulate", path, "--speed", "max", "--format", "json")
        #expect(run.status == 65, "\(run)")
        #expect(run.stdout.isEmpty, "\(run)")
        #expect(run.stderr.contains("\"UTF-7\" is not supported"), "\(run)")
        #expect(run.stderr.contains("line 1"), "\(run)")
    }
}
