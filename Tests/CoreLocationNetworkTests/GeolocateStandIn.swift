import CoreLocationNetwork
import CoreLocationGPSDTestSupport
import Foundation

/// The Python stand-in for the geolocate service (Fixtures/geolocate/standin.py) on a kernel-chosen port.
final class GeolocateStandIn: @unchecked Sendable {
    // @unchecked: every property is set in init and only read afterwards; the log is a file.
    let url: URL
    let process: ChildProcess
    // Goes (with the log) after deinit has killed the stand-in that writes there.
    let directory: ScratchDirectory
    let logPath: String

    static let python = "/usr/bin/python3"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: python) }

    struct Failure: Error {}

    init() async throws {
        directory = try Fixtures.scratch()
        logPath = directory.path("requests.jsonl")
        _ = FileManager.default.createFile(atPath: logPath, contents: Data())
        process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [
            Fixtures.directory.appendingPathComponent("geolocate/standin.py").path,
            Fixtures.directory.appendingPathComponent("geolocate/map.json").path, logPath,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = await ChildProcess.firstLine(of: output.fileHandleForReading) ?? ""
        guard let port = text.split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }),
            let url = URL(string: "http://127.0.0.1:\(port)/v1/geolocate")
        else {
            // SIGKILL, waited for, as in deinit: the child inherits the runner's blocked SIGTERM, and the
            // log's directory goes as this throws.
            ChildProcess.kill(process)
            throw Failure()
        }
        self.url = url
    }

    deinit { ChildProcess.kill(process) }

    struct LoggedRequest: Decodable {
        struct Body: Decodable {
            struct AccessPoint: Decodable {
                var macAddress: String
                var signalStrength: Int
                var frequency: Int?
            }
            struct CellTower: Decodable {
                var radioType: String?
                var mobileCountryCode: Int
                var mobileNetworkCode: Int
                var locationAreaCode: Int
                var cellId: Int
            }
            var considerIp: Bool?
            var wifiAccessPoints: [AccessPoint]?
            var cellTowers: [CellTower]?
        }
        var path: String
        var userAgent: String?
        var body: Body?
        /// The fault the stand-in applied to this request ("none" for a normal answer).
        var fault: String?
    }

    /// Every request the stand-in received, in order.
    func requests() throws -> [LoggedRequest] {
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(LoggedRequest.self, from: Data($0.utf8)) }
    }

    /// Makes the next `times` requests fail with `fault` (nil times: until changed).
    func inject(_ fault: String, times: Int? = nil) async throws {
        var body: [String: Any] = ["fault": fault]
        if let times { body["times"] = times }
        let control = URL(string: "/control", relativeTo: url)?.absoluteURL ?? url
        _ = try await AsyncHTTPGeolocateTransport().post(
            url: control, body: try JSONSerialization.data(withJSONObject: body), userAgent: "test", timeout: .seconds(5))
    }
}
