import CoreLocationEngine
import Foundation
import Testing

@testable import CoreLocation
import CoreLocationRuntime

/// `allowsBackgroundLocationUpdates` and `showsBackgroundLocationIndicator` on Linux (decision 0047): the first
/// needs `location` in the Info.plist's `UIBackgroundModes` (iOS raises; here it is refused and logged), and both
/// travel with the app's update request, where `locationctl status` reads them.
@Suite struct BackgroundUpdatesTests {
    @Test func withoutTheBackgroundModeTheSettingIsRefusedAndLogged() throws {
        let h = try ManagerHarness()
        try h.authorize(.always)
        let manager = h.manager(RecordingDelegate())
        manager.startUpdatingLocation()
        manager.allowsBackgroundLocationUpdates = true
        manager.showsBackgroundLocationIndicator = true
        #expect(!manager.allowsBackgroundLocationUpdates)
        #expect(manager.showsBackgroundLocationIndicator)  // Apple's default is false; it is only a wish here
        #expect(h.logMessages.contains { $0.contains("UIBackgroundModes") })
        let updates = try #require(h.runtime.status().clients.first?.updates)
        #expect(updates.allowsBackground == nil && updates.showsIndicator == nil)
    }

    @Test func theDeclarationAndTheIndicatorFollowTheProperties() throws {
        let h = try ManagerHarness(backgroundModes: ["location", "fetch"])
        try h.authorize(.always)
        let manager = h.manager(RecordingDelegate())
        manager.startUpdatingLocation()
        #expect(h.runtime.status().clients.first?.updates?.allowsBackground == nil)

        manager.allowsBackgroundLocationUpdates = true
        #expect(manager.allowsBackgroundLocationUpdates)
        var updates = try #require(h.runtime.status().clients.first?.updates)
        #expect(updates.allowsBackground == true && updates.showsIndicator == nil)

        // The indicator needs both, as on iOS; changed while updating, the request follows at once.
        manager.showsBackgroundLocationIndicator = true
        updates = try #require(h.runtime.status().clients.first?.updates)
        #expect(updates.allowsBackground == true && updates.showsIndicator == true)
        manager.allowsBackgroundLocationUpdates = false
        updates = try #require(h.runtime.status().clients.first?.updates)
        #expect(updates.allowsBackground == nil && updates.showsIndicator == nil)

        // Delivery is the same either way: a running Linux process is always in use.
        let delegate = RecordingDelegate()
        manager.delegate = delegate
        h.advance(by: 2.5)
        #expect(delegate.calls.contains { if case .locations = $0 { true } else { false } })
    }

    @Test func theBackgroundModesAreReadFromTheInfoPlist() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bg-\(UUID().uuidString).plist").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let plist: [String: Any] = [
            "CFBundleIdentifier": "org.example.background", "UIBackgroundModes": ["location", "audio"],
        ]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            .write(to: URL(fileURLWithPath: path))
        let identity = AppIdentity.current(environment: ["CORELOCATION_INFO_PLIST": path], bundleInfo: nil)
        #expect(identity.id == "org.example.background")
        #expect(identity.backgroundModes == ["location", "audio"])
    }
}
