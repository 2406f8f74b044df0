import CoreLocationDaemonProtocol
import Foundation
import Testing

/// `status` fits one frame whatever the daemon serves: at most 64 apps and 128 clients are listed, then as many as
/// fit the bytes, the rest counted (before, a daemon with 1 000 GeoClue clients answered with a frame too long to
/// send, and `locationctl status` failed).
@Suite struct StatusBoundTests {
    static func status(apps: Int, clients: Int, label: String = "c") -> DaemonStatus {
        DaemonStatus(
            pid: 1, servicesEnabled: true, database: "/d",
            apps: (0..<apps).map { app in
                DaemonStatus.App(
                    app: "app-\(app)", uid: 1000, authorization: WireAuthorization(level: .whenInUse, accuracy: .full),
                    clients: (0..<clients).map {
                        DaemonStatus.Client(pid: Int32($0), label: "\(label)\($0)", services: ["updates"], lastDelivery: 1)
                    })
            }, sources: [])
    }

    @Test func countsAreBoundedAndTheRestCounted() throws {
        let bounded = Self.status(apps: 100, clients: 20).bounded()
        #expect(bounded.apps.count == 64)
        #expect(bounded.omittedApps == 36)
        #expect(bounded.apps.map(\.clients.count).reduce(0, +) == 128)
        // In order: six whole apps, eight of the seventh, none of the others, each counted.
        #expect(bounded.apps.prefix(7).map(\.clients.count) == [20, 20, 20, 20, 20, 20, 8])
        #expect(bounded.apps[6].omittedClients == 12)
        #expect(bounded.apps[7].clients.isEmpty && bounded.apps[7].omittedClients == 20)
        #expect(bounded.apps[0].omittedClients == nil)
        #expect(try DaemonProtocol.frame(DaemonReply.status(bounded)).count <= DaemonProtocol.maximumFrameLength)
    }

    @Test func longLabelsAreCutToTheFrame() throws {
        let status = Self.status(apps: 10, clients: 10, label: String(repeating: "x", count: 2_000))
        #expect(try DaemonProtocol.encode(status).count > DaemonProtocol.maximumFrameLength)
        let bounded = status.bounded()
        #expect(try DaemonProtocol.frame(DaemonReply.status(bounded)).count <= DaemonProtocol.maximumFrameLength)
        let listed = bounded.apps.map(\.clients.count).reduce(0, +)
        let omitted = bounded.apps.compactMap(\.omittedClients).reduce(0, +)
            + 10 * (bounded.omittedApps ?? 0)
        #expect(listed > 0 && listed + omitted == 100, "\(listed) listed, \(omitted) omitted")
    }

    @Test func aSmallStatusIsUnchanged() {
        let status = Self.status(apps: 3, clients: 4)
        #expect(status.bounded() == status)
    }
}
