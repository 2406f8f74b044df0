import Foundation
import Testing

@testable import CoreLocationEngine

/// Issue 37, item 5: the region limit is the app's, across plain regions and every monitor's conditions, and an
/// identifier (or a monitor's name) is at most 256 bytes (decision 0087).
@Suite struct RegionAppLimitTests {
    func region(_ identifier: String, group: String = "", index: Int = 0) -> MonitoredRegion {
        MonitoredRegion(
            identifier: identifier, latitude: 45 + Double(index / 100) * 0.01,
            longitude: 6 + Double(index % 100) * 0.01, radius: 100, group: group)
    }

    @Test func aHundredMonitorsOfTwentyConditionsStoreTwentyInAll() {
        var d = driver()
        for group in 0..<100 {
            for condition in 0..<20 {
                let monitored = region("c\(condition)", group: "monitor:m\(group)", index: group * 20 + condition)
                d.send(.client(app, .startMonitoring(monitored)))
            }
        }
        #expect(d.engine.monitoredRegions.count == 20)
        #expect(d.trace(app).filter { $0.hasPrefix("start:") }.count == 20)
        #expect(d.trace(app).filter { $0.hasSuffix(":tooManyRegions") }.count == 100 * 20 - 20)
        // A plain region counts against the same limit.
        d.send(.client(app, .startMonitoring(region("plain", index: 9_999))))
        #expect(d.trace(app).last == "fail:plain:tooManyRegions")
    }

    @Test func identifiersOverTwoHundredFiftySixBytesAreRefused() {
        var d = driver()
        let longest = String(repeating: "é", count: 128)  // 256 bytes
        d.send(.client(app, .startMonitoring(region(longest))))
        #expect(d.trace(app).last == "start:\(longest)")
        let huge = String(repeating: "x", count: 16 * 1024)
        d.send(.client(app, .startMonitoring(region(huge, index: 1))))
        #expect(d.trace(app).last == "fail:\(huge):identifierTooLong")
        let longName = "monitor:" + String(repeating: "m", count: 257)
        d.send(.client(app, .startMonitoring(region("ok", group: longName, index: 2))))
        #expect(d.trace(app).last == "fail:ok:identifierTooLong")
        #expect(d.engine.monitoredRegions.map(\.region.identifier) == [longest])
    }
}
