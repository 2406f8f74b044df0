import Foundation
import Testing

@testable import CoreLocationSources

@Suite("GPX parser")
struct GPXParserTests {
    @Test("real Garmin track excerpt: count, first and last point as written in the file")
    func garminExcerpt() throws {
        let points = try GPXParser().points(from: try fixture("around-visnjan-with-car-excerpt.gpx"))
        #expect(points.count == 12)
        let first = try #require(points.first)
        #expect(first.latitude == 45.2735188510)
        #expect(first.longitude == 13.7142099626)
        #expect(first.elevation == 211.15)
        #expect(first.time == Date(timeIntervalSince1970: 1_608_272_150))  // 2020-12-18T06:15:50Z
        #expect(first.speed == nil && first.course == nil)
        let last = try #require(points.last)
        #expect(last.latitude == 45.2732143365)
        #expect(last.longitude == 13.7135986704)
        #expect(last.elevation == 209.70)
        #expect(last.time == Date(timeIntervalSince1970: 1_608_272_215))  // 2020-12-18T06:16:55Z
        let route = SimulatedRoute(name: "excerpt", points: points)
        #expect(route.duration == 65)
        #expect(route.offsets[1] == 10 && route.offsets[2] == 22)
    }

    @Test("GPX 1.0 speed elements are read (gpxpy's track_with_speed.gpx)")
    func gpx10Speed() throws {
        let points = try GPXParser().points(from: try fixture("track-with-speed.gpx"))
        #expect(points.map(\.speed) == [1.2, 2.2, 3.2])
        #expect(points.map(\.latitude) == [52.330848, 52.330951, 52.331014])
        #expect(points.first?.elevation == 48.962041)
        #expect(points.first?.time == Date(timeIntervalSince1970: 1_236_002_752))
        #expect(points.last?.time == Date(timeIntervalSince1970: 1_236_002_765))
        let route = SimulatedRoute(name: "speed", points: points)
        #expect(route.kinematics(at: 2).speed == 3.2)
    }

    @Test("Garmin extension speed/course, GPX 1.0 course, undeclared prefixes")
    func extensions() throws {
        let text = """
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="1" lon="2"><extensions><gpxtpx:TrackPointExtension>
            <gpxtpx:speed>4.5</gpxtpx:speed><gpxtpx:course>370</gpxtpx:course>
            </gpxtpx:TrackPointExtension></extensions></trkpt>
            <trkpt lat="1.5" lon="2.5"><course>-1</course><speed> 0 </speed></trkpt>
            </trkseg></trk></gpx>
            """
        let points = try GPXParser().points(from: Data(text.utf8))
        #expect(points[0].speed == 4.5)
        #expect(points[0].course == 10)
        #expect(points[1].course == nil)
        #expect(points[1].speed == 0)
        #expect(points[0].time == nil)
    }

    @Test("track points win over route points, route points over waypoints")
    func pointPreference() throws {
        let routeOnly = """
            <gpx><wpt lat="10" lon="10"/><rte><rtept lat="1" lon="1"/><rtept lat="2" lon="2"/></rte></gpx>
            """
        #expect(try GPXParser().points(from: Data(routeOnly.utf8)).map(\.latitude) == [1, 2])
        let waypointsOnly = #"<gpx><wpt lat="10" lon="11"><ele>3.4</ele></wpt></gpx>"#
        #expect(try GPXParser().points(from: Data(waypointsOnly.utf8)).map(\.longitude) == [11])
        let all = """
            <gpx><wpt lat="10" lon="10"/><rte><rtept lat="1" lon="1"/></rte>
            <trk><trkseg><trkpt lat="5" lon="5"/></trkseg><trkseg><trkpt lat="6" lon="6"/></trkseg></trk></gpx>
            """
        #expect(try GPXParser().points(from: Data(all.utf8)).map(\.latitude) == [5, 6])
    }

    /// Each case names the problem, the text, and the line a person should look at.
    @Test(
        "malformed GPX gives the right code and line",
        arguments: [
            ("not XML", "hello world", GPXError.Code.malformedXML, 1),
            ("empty", "", .malformedXML, 1),
            (
                "unclosed", "<gpx>\n<trk>\n<trkseg>\n<trkpt lat=\"1\" lon=\"2\"></trkseg>\n</trk></gpx>",
                .malformedXML, 4
            ),
            ("not GPX", "<?xml version=\"1.0\"?>\n<kml>\n</kml>", .notGPX, 2),
            ("no points", "<gpx version=\"1.1\">\n<metadata/>\n</gpx>", .noPoints, 3),
            (
                "missing lon", "<gpx>\n<trk><trkseg>\n<trkpt lat=\"1\"></trkpt>\n</trkseg></trk></gpx>",
                .missingCoordinate, 3
            ),
            ("missing lat", "<gpx>\n<wpt lon=\"1\"/>\n</gpx>", .missingCoordinate, 2),
            ("lat not a number", "<gpx>\n\n\n<wpt lat=\"abc\" lon=\"1\"/></gpx>", .invalidNumber, 4),
            ("lon is NaN", "<gpx>\n<wpt lat=\"1\" lon=\"nan\"/></gpx>", .invalidNumber, 2),
            ("lat 91", "<gpx>\n<wpt lat=\"91\" lon=\"1\"/></gpx>", .coordinateOutOfRange, 2),
            ("lon -180.5", "<gpx>\n\n<wpt lat=\"0\" lon=\"-180.5\"/></gpx>", .coordinateOutOfRange, 3),
            ("ele not a number", "<gpx>\n<wpt lat=\"1\" lon=\"1\">\n<ele>high</ele>\n</wpt></gpx>", .invalidNumber, 3),
            (
                "month 13", "<gpx>\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"1\">\n\n<time>2020-13-01T00:00:00Z</time>\n"
                    + "</trkpt></trkseg></trk></gpx>", .invalidTime, 5
            ),
            (
                "time goes backwards",
                "<gpx><trk><trkseg>\n<trkpt lat=\"1\" lon=\"1\"><time>2020-01-01T00:00:10Z</time></trkpt>\n"
                    + "<trkpt lat=\"1\" lon=\"1\"><time>2020-01-01T00:00:11Z</time></trkpt>\n"
                    + "<trkpt lat=\"1\" lon=\"1\"><time>2020-01-01T00:00:09Z</time></trkpt>\n</trkseg></trk></gpx>",
                .timeGoesBackwards, 4
            ),
        ] as [(String, String, GPXError.Code, Int)]
    )
    func malformed(name: String, text: String, code: GPXError.Code, line: Int) {
        do {
            let points = try GPXParser().points(from: Data(text.utf8))
            Issue.record("\(name): parsed \(points.count) points, expected \(code)")
        } catch let error as GPXError {
            #expect(error.code == code, "\(name): \(error)")
            #expect(error.line == line, "\(name): \(error)")
            #expect(!error.message.isEmpty)
        } catch {
            Issue.record("\(name): unexpected \(error)")
        }
    }

    @Test("catch by code")
    func catchByCode() {
        var matched = false
        do {
            _ = try GPXParser().points(from: Data("<gpx></gpx>".utf8))
        } catch GPXError.Code.noPoints {
            matched = true
        } catch {}
        #expect(matched)
    }

    /// Expected values from Python's `datetime.fromisoformat(...).timestamp()`.
    @Test(
        "ISO 8601 times",
        arguments: [
            ("2020-12-18T06:15:50Z", 1_608_272_150.0),
            ("2015-12-11T15:43:13.994+01:00", 1_449_844_993.994),
            ("2010-08-05T14:23:59.207343Z", 1_281_018_239.207343),
            ("2020-01-01T00:00:00", 1_577_836_800.0),
            ("  2016-06-17T23:41:03-05:30\n", 1_466_226_663.0),
            ("2016-06-17T23:41:03-0530", 1_466_226_663.0),
            ("2016-06-18T05:11:03+00", 1_466_226_663.0),
            ("1901-12-13T20:45:52.207343Z", -2_147_483_647.792657),
            ("2016-12-31T23:59:60Z", 1_483_228_800.0),
        ]
    )
    func times(text: String, expected: Double) throws {
        let date = try #require(GPXParser.parseTime(text))
        #expect(abs(date.timeIntervalSince1970 - expected) < 1e-6)
    }

    @Test(
        "invalid times",
        arguments: [
            "2020-02-30T00:00:00Z", "2019-02-29T00:00:00Z", "2020-01-01T24:00:00Z", "2020-01-01", "yesterday",
            "2020-01-01T00:00:00.Z", "2020-01-01T00:00:00+25:00", "2020-1-01T00:00:00Z", "2020-01-01T00:00:00ZZ", "",
        ]
    )
    func invalidTimes(text: String) {
        #expect(GPXParser.parseTime(text) == nil)
    }
}
