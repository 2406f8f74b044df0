import Foundation
import CoreLocationEngine

/// What a gpsd source knows about its daemon and receivers, for `locationctl sources`.
public struct GPSDSourceStatus: Sendable, Equatable {
    public var endpoint: GPSDEndpoint
    /// A connection to gpsd is open.
    public var isConnected = false
    /// gpsd's release, from VERSION.
    public var release: String?
    /// The receivers gpsd reported (DEVICES/DEVICE); one with `activated` set is open (powered).
    public var devices: [GPSDDevice] = []
    /// Satellites in view and used, from the latest SKY.
    public var satellitesInView: Int?
    public var satellitesUsed: Int?
    /// The latest fix gpsd reported (even if deduplicated away).
    public var lastFix: Fix?
    /// gpsd's latest TPV mode (0/1 no fix, 2 = 2D, 3 = 3D).
    public var mode: Int?
    /// Lines that were not valid gpsd objects, since the source was made.
    public var invalidLines = 0
    /// The latest ERROR message gpsd sent, or why the last connection failed.
    public var lastError: String?

    public init(endpoint: GPSDEndpoint) {
        self.endpoint = endpoint
    }

    /// True when gpsd reports at least one receiver open.
    public var isPowered: Bool { devices.contains { $0.activated != nil } }

    /// Folds one message in.
    mutating func apply(_ message: GPSDMessage) {
        switch message {
        case .version(let version): release = version.release
        case .devices(let list): devices = list.devices ?? []
        case .device(let device):
            if let index = devices.firstIndex(where: { $0.path == device.path }) {
                devices[index] = device
            } else {
                devices.append(device)
            }
        case .sky(let sky):
            if let inView = sky.inView { satellitesInView = inView }
            if let used = sky.used { satellitesUsed = used }
        case .tpv(let tpv): mode = tpv.mode
        case .error(let report): lastError = report.message
        case .poll(let poll):
            for sky in poll.sky ?? [] { apply(.sky(sky)) }
        case .watch, .gst, .att, .unknown: break
        }
    }
}
