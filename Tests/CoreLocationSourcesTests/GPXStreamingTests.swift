import CoreLocationGPSDTestSupport
import Foundation
import Testing

@testable import CoreLocationSources

/// GPX documents of any size are read as a stream; files that cannot be read say why.
@Suite("GPX streaming and file problems")
struct GPXStreamingTests {
    /// A 1 Hz track of `count` points, written at test time (about 100 bytes a point).
    static func writeTrack(count: Int, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        handle.write(Data(#"<?xml version="1.0"?><gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1">"#.utf8))
        handle.write(Data("\n<trk><trkseg>\n".utf8))
        var chunk = ""
        for index in 0..<count {
            let latitude = 45 + Double(index) * 1e-6
            let seconds = 1_700_000_000 + index
            let time = Date(timeIntervalSince1970: Double(seconds)).formatted(.iso8601)
            chunk += #"<trkpt lat="\#(latitude)" lon="13.5"><ele>200.5</ele><time>\#(time)</time></trkpt>"# + "\n"
            if chunk.utf8.count > 1 << 16 {
                handle.write(Data(chunk.utf8))
                chunk = ""
            }
        }
        handle.write(Data((chunk + "</trkseg></trk></gpx>\n").utf8))
    }

    /// Regression: libxml2 refuses one input over 10 MB, so `XMLParser(data:)` reported a valid
    /// 150 000-point (≈ 15 MB) track as "not well-formed XML" at its last line.
    @Test("a track over 10 MB is read whole, from a file and from Data")
    func overTenMegabytes() throws {
        let scratch = try ScratchDirectory("gpx")
        let url = scratch.url.appendingPathComponent("long.gpx")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        try Self.writeTrack(count: 150_000, to: url)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        #expect(size > 10_485_760)
        let route = try GPXParser().route(contentsOfFile: url.path)
        #expect(route.points.count == 150_000)
        #expect(route.name == "long")
        #expect(route.duration == 149_999)
        #expect(route.points.last?.latitude == 45 + 149_999 * 1e-6)
        let fromData = try GPXParser().points(from: try Data(contentsOf: url))
        #expect(fromData.count == 150_000)
    }

    @Test("a truncated document is malformed at its last line")
    func truncated() throws {
        let text = "<gpx>\n<trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\"></trkpt>\n"
        let error = #expect(throws: GPXError.self) { try GPXParser().points(from: Data(text.utf8)) }
        #expect(error?.code == .malformedXML)
        #expect(error?.line == 3)
    }

    @Test("points stream to the caller, who may stop early")
    func streamsAndStops() throws {
        let text = """
            <gpx><trk><trkseg><trkpt lat="1" lon="1"/><trkpt lat="2" lon="2"/><trkpt lat="3" lon="3"/>
            </trkseg></trk></gpx>
            """
        struct Enough: Error {}
        var seen: [Double] = []
        #expect(throws: Enough.self) {
            try GPXParser().forEachPoint(in: InputStream(data: Data(text.utf8))) { point in
                seen.append(point.latitude)
                if seen.count == 2 { throw Enough() }
            }
        }
        #expect(seen == [1, 2])
    }

    @Test("files that cannot be read say why")
    func fileProblems() throws {
        let scratch = try ScratchDirectory("gpx")
        let directory = scratch.url
        let missing = directory.appendingPathComponent("missing.gpx").path
        #expect(FileProblem.check(missing)?.message == "no such file: \(missing)")
        #expect(FileProblem.check(directory.path)?.code == .isDirectory)
        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect(FileProblem.check(fifo)?.code == .isFIFO)
        let secret = directory.appendingPathComponent("secret.gpx").path
        _ = FileManager.default.createFile(atPath: secret, contents: Data("<gpx/>".utf8), attributes: [.posixPermissions: 0])
        if getuid() != 0 {  // root reads anything
            #expect(FileProblem.check(secret)?.message == "permission denied: \(secret)")
        }
        do {
            _ = try SimulationScenario.parse(missing)
            Issue.record("a missing file was read")
        } catch let error as SimulationError {
            #expect(error.code == .unreadableFile)
            #expect("\(error)" == "no such file: \(missing)")
        }
    }
}
