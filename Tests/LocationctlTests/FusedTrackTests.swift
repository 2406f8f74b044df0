import CoreLocationEngine
import Foundation
import Testing

/// `locationctl track --imu`: a drive's IMU replayed beside its GPX (decision 0095, Wiring).
@Suite struct FusedTrackTests {
    /// A 70 s drive east at 12 m/s with a 20 s hole in its GPX (a tunnel), and the drive's IMU synthesised with a
    /// fixed seed; both on the recording's clock (2024-01-01T00:00:00Z = 1 704 067 200 s).
    static func drive(in sandbox: Sandbox) throws -> (gpx: String, imu: String) {
        let start = 1_704_067_200.0
        let plane = LocalTangentPlane(latitude: 45.2, longitude: 13.6)
        let points = (0...70).map { second -> (time: Double, latitude: Double, longitude: Double) in
            let (latitude, longitude) = plane.unproject(east: 12 * Double(second), north: 0)
            return (start + Double(second), latitude, longitude)
        }
        let synthesizer = try #require(InertialSynthesizer(points: points))
        let formatter = ISO8601DateFormatter()
        var gpx = #"<?xml version="1.0" encoding="UTF-8"?><gpx version="1.1" creator="FusedTrackTests" "#
            + #"xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>"# + "\n"
        for point in points where !(30...49).contains(point.time - start) {
            let time = formatter.string(from: Date(timeIntervalSince1970: point.time))
            gpx += #"<trkpt lat="\#(point.latitude)" lon="\#(point.longitude)"><time>\#(time)</time></trkpt>"# + "\n"
        }
        gpx += "</trkseg></trk></gpx>\n"
        let imu = InertialRecording.encode(
            synthesizer.inertialSamples(seed: 3), comments: ["synthesised by FusedTrackTests, seed 3"])
        return (try sandbox.write(gpx, to: "drive.gpx"), try sandbox.write(imu, to: "drive.imu.csv"))
    }

    /// The same fixes at `--speed max` and `--speed 20`; fused ones marked; the tunnel bridged by dead reckoning.
    @Test func theSameFusedFixesAtEverySpeed() async throws {
        let sandbox = try Sandbox()
        let (gpx, imu) = try Self.drive(in: sandbox)
        let fast = try await sandbox.locationctl("track", "--simulate", gpx, "--imu", imu, "--speed", "max", "--format", "json")
        let paced = try await sandbox.locationctl("track", "--simulate", gpx, "--imu", imu, "--speed", "20", "--format", "json")
        #expect(fast.status == 0 && paced.status == 0, "\(fast) \(paced)")
        #expect(fast.stdout == paced.stdout)
        let objects = try fast.lines.map(jsonObject)
        #expect(objects.count >= 65, "a fix a second, the 20 s hole dead-reckoned (\(objects.count))")
        #expect(objects.filter { $0["fused"] as? Bool == true }.count >= 60, "\(fast)")
        let plain = try await sandbox.locationctl("track", "--simulate", gpx, "--speed", "max", "--format", "json")
        #expect(try plain.lines.map(jsonObject).allSatisfy { $0["fused"] == nil }, "no IMU, nothing fused")
    }

    /// The same drive as an NMEA log (RMC + GGA a second, the hole left out): the IMU's samples are placed by the
    /// log's own times (`NMEAStreamSource.recordedStart`), so fixes are fused, the hole is bridged, at every speed.
    @Test func anNMEALogAndItsIMU() async throws {
        let sandbox = try Sandbox()
        let (_, imu) = try Self.drive(in: sandbox)
        let plane = LocalTangentPlane(latitude: 45.2, longitude: 13.6)
        var log = ""
        for second in 0...70 where !(30...49).contains(second) {
            let (latitude, longitude) = plane.unproject(east: 12 * Double(second), north: 0)
            let time = String(format: "00%02d%02d.00", second / 60, second % 60)
            let lat = String(format: "%02d%07.4f,N", Int(latitude), (latitude - Double(Int(latitude))) * 60)
            let lon = String(format: "%03d%07.4f,E", Int(longitude), (longitude - Double(Int(longitude))) * 60)
            log += Self.sentence("GPRMC,\(time),A,\(lat),\(lon),23.33,90.0,010124,,,A")
            log += Self.sentence("GPGGA,\(time),\(lat),\(lon),1,10,0.9,50.0,M,40.0,M,,")
        }
        let nmea = try sandbox.write(log, to: "drive.nmea")
        let fast = try await sandbox.locationctl(
            "track", "--source", "nmea:\(nmea)", "--imu", imu, "--speed", "max", "--format", "json")
        let paced = try await sandbox.locationctl(
            "track", "--source", "nmea:\(nmea)", "--imu", imu, "--speed", "20", "--format", "json")
        #expect(fast.status == 0 && paced.status == 0, "\(fast) \(paced)")
        #expect(fast.stdout == paced.stdout)
        let objects = try fast.lines.map(jsonObject)
        #expect(objects.filter { $0["fused"] as? Bool == true }.count >= 60, "\(fast)")
    }

    /// An NMEA sentence with its checksum and line end.
    static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0), ^)
        return "$" + body + String(format: "*%02X", checksum) + "\r\n"
    }

    @Test func aMalformedRecordingNamesItsLine() async throws {
        let sandbox = try Sandbox()
        let (gpx, _) = try Self.drive(in: sandbox)
        let bad = try sandbox.write("# corelocation-imu 1\nt,ax,ay,az,gx,gy,gz\n1,2,3\n", to: "bad.imu.csv")
        let run = try await sandbox.locationctl("track", "--simulate", gpx, "--imu", bad, "--speed", "max")
        #expect(run.status == 65, "\(run)")
        #expect(run.stderr.contains("line 3"), "\(run)")
        let live = try await sandbox.locationctl("track", "--source", "gpsd://127.0.0.1:1", "--imu", bad)
        #expect(live.status == 64, "\(live)")
        #expect(live.stderr.contains("--imu"), "\(live)")
    }
}
