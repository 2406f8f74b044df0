import ArgumentParser
import CoreLocationBeacons
import CoreLocationDBus
import CoreLocationEngine
import CoreLocationRuntime
import CoreLocationSources
import Foundation
import Logging

extension LocationCtl {
    /// `locationctl beacons`: ranges iBeacon/AltBeacon beacons once a second (docs/beacons.md).
    struct Beacons: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "beacons",
            abstract: "Range iBeacon and AltBeacon beacons through BlueZ, or replay recorded advertisements.",
            discussion: """
                Prints one ranging result a second, as CLLocationManager's didRange delivers it: the beacons \
                heard in the last 5 s, nearest first, with the cycle's mean RSSI and the path-loss distance \
                (accuracy, metres; -1 when the cycle had no reading). --simulate replays a recorded file (JSON \
                lines: t, address, rssi, manufacturer/service data in hex; see docs/beacons.md) in real time.

                Examples:
                  locationctl beacons --uuid 83256B74-78D0-43A4-8269-05F9DC8A44BA
                  locationctl beacons --simulate Examples/beacons/demo.jsonl --format json --duration 5
                """
        )

        enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

        @Option(help: "Only beacons with this proximity UUID.") var uuid: String?
        @Option(help: "Only beacons with this major value (needs --uuid).") var major: UInt16?
        @Option(help: "Only beacons with this minor value (needs --uuid and --major).") var minor: UInt16?
        @Option(help: "Output format.") var format: Format = .text
        @Option(help: ArgumentHelp("Replay recorded advertisements instead of scanning.", valueName: "file"))
        var simulate: String?
        @Option(help: "Stop after this many seconds (default: until interrupted).") var duration: Double?

        func validate() throws {
            if let uuid, UUID(uuidString: uuid) == nil {
                throw ValidationError("--uuid must be a UUID like 83256B74-78D0-43A4-8269-05F9DC8A44BA, got '\(uuid)'")
            }
            if major != nil, uuid == nil { throw ValidationError("--major needs --uuid") }
            if minor != nil, major == nil { throw ValidationError("--minor needs --major") }
            if let duration, !(duration > 0) { throw ValidationError("--duration must be positive") }
        }

        @MainActor
        func run() async throws {
            let scheduler = DispatchScheduler()
            let scanner: any BeaconScanner
            if let simulate {
                do {
                    scanner = try ReplayBeaconScanner(
                        contentsOf: URL(fileURLWithPath: simulate), scheduler: scheduler)
                } catch {
                    throw ValidationError("--simulate \(simulate): \(error)")
                }
            } else {
                scanner = try await Self.bluez()
            }
            // Ranging runs in this process whichever side runs the engine. Real beacons say where the user is, so
            // the app's authorization applies as for locations: decided here, or by locationd when it answers. A
            // recording reveals nothing about the user and needs none, as simulated positions (decision 0003).
            BeaconRuntime.installShared(BeaconRuntime(scanner: scanner, scheduler: scheduler))
            let authorization: AuthorizationService? =
                simulate == nil ? try SourceOptions.parse([]).installRuntime(throughDaemon: true).runtime.authorization : nil
            if let authorization { try await Self.waitForAuthorization(authorization) }
            let constraint = BeaconConstraint(uuid: uuid.flatMap(UUID.init(uuidString:)), major: major, minor: minor)
            let format = self.format
            let session = BeaconRangingSession(scanner: scanner, scheduler: scheduler) { output in
                guard case .action(.ranged(_, let beacons)) = output else {
                    if case .availabilityChanged(false) = output {
                        FileHandle.standardError.write(Data("beacons: scanning unavailable\n".utf8))
                    }
                    return
                }
                // A decision revoked meanwhile stops the output at once, as a manager's delegate stops hearing.
                if let authorization, !authorization.authorization.allowsLocation || !authorization.servicesEnabled {
                    return
                }
                let text = Self.render(beacons, at: scheduler.now, format: format) + "\n"
                FileHandle.standardOutput.write(Data(text.utf8))
            }
            session.startRanging(constraint)
            if let duration {
                try await Task.sleep(for: .milliseconds(Int(duration * 1000) + 100))
            } else {
                while true { try await Task.sleep(for: .seconds(3600)) }
            }
            session.stopRanging(constraint)
        }

        /// Returns once the app is authorized; asks once while undetermined; exits 77 when it cannot be.
        @MainActor
        static func waitForAuthorization(_ service: AuthorizationService) async throws {
            let (levels, continuation) = AsyncStream<AuthorizationLevel>.makeStream()
            let token = service.addObserver { continuation.yield($0.level) }
            defer { service.removeObserver(token) }
            continuation.yield(service.authorization.level)
            var gate = RuntimeAuthorization(service)
            for await level in levels where try gate.isAuthorized(level) { return }
        }

        static func bluez() async throws -> BlueZScanner {
            func unavailable(_ text: String) -> ExitCode {
                printError(text)
                return ExitCode(69)
            }
            let client: DBusClient
            do {
                client = try DBusClient(bus: .system)
            } catch {
                throw unavailable(BlueZScanner.reason(connecting: error))
            }
            let logger = Logger(label: "corelocation.beacons.bluez")
            let mode = BlueZScanMode(environment: ProcessInfo.processInfo.environment, logger: logger)
            let scanner = BlueZScanner(client: client, scanMode: mode, logger: logger)
            guard scanner.checkAvailability(timeout: .seconds(2)) else {
                if (try? await client.nameOwner(BlueZScanner.service, timeout: .seconds(2))) == nil {
                    throw unavailable(
                        "beacons: needs BlueZ (Debian package bluez) running on the system bus "
                            + "(org.bluez is not on it)")
                }
                throw unavailable("beacons: no powered Bluetooth adapter (BlueZ has none)")
            }
            return scanner
        }

        static func render(_ beacons: [RangedBeacon], at time: Double, format: Format) -> String {
            switch format {
            case .json:
                let items = beacons.map { beacon in
                    "{\"uuid\":\"\(beacon.uuid.uuidString)\",\"major\":\(beacon.major),\"minor\":\(beacon.minor),"
                        + "\"proximity\":\"\(name(beacon.proximity))\",\"accuracy\":"
                        + String(format: "%.2f", beacon.accuracy) + ",\"rssi\":\(beacon.rssi)}"
                }
                return "{\"t\":" + String(format: "%.1f", time) + ",\"beacons\":[" + items.joined(separator: ",") + "]}"
            case .text:
                var lines = [String(format: "t=%.1f s  %d beacon(s)", time, beacons.count)]
                for beacon in beacons {
                    lines.append(
                        "  \(beacon.uuid.uuidString) \(beacon.major) \(beacon.minor)  \(name(beacon.proximity))  "
                            + String(format: "%.2f m", beacon.accuracy) + "  \(beacon.rssi) dBm")
                }
                return lines.joined(separator: "\n")
            }
        }

        static func name(_ proximity: BeaconProximity) -> String {
            switch proximity {
            case .unknown: "unknown"
            case .immediate: "immediate"
            case .near: "near"
            case .far: "far"
            }
        }
    }
}
