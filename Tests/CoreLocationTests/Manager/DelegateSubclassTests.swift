import Foundation
import Synchronization
import Testing

@testable import CoreLocation

/// Issue 15 item 10: which delegate methods implemented in a subclass of the conforming class are
/// called. Swift (without the Objective-C runtime) fills a class's conformance once, from what the
/// conforming class itself declares; a subclass cannot add a witness, only override one.
/// See docs/decisions/0013-info-plist-delegates-services.md.
@Suite struct DelegateSubclassTests {
    /// Calls recorded by all the classes below.
    final class Calls: Sendable {
        private let list = Mutex<[String]>([])
        var all: [String] { list.withLock { $0 } }
        func record(_ call: String) { list.withLock { $0.append(call) } }
    }

    /// Conforms and implements didUpdateLocations itself (empty, as a base class would).
    class ImplementingBase: NSObject, CLLocationManagerDelegate, @unchecked Sendable {
        // @unchecked: the only stored property is a Sendable `Calls`; tests call it on one thread.
        let calls = Calls()
        func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {}
        func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
            calls.record("base:authorization")
        }
    }

    final class OverridingSubclass: ImplementingBase, @unchecked Sendable {
        override func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
            calls.record("subclass:locations")
        }
        override func locationManagerDidChangeAuthorization(_ manager: CLLocationManager) {
            calls.record("subclass:authorization")
            super.locationManagerDidChangeAuthorization(manager)
        }
    }

    /// Conforms but leaves didUpdateLocations to the protocol's default.
    class SilentBase: NSObject, CLLocationManagerDelegate, @unchecked Sendable {
        // @unchecked: as above.
        let calls = Calls()
    }

    final class SubclassOnly: SilentBase, @unchecked Sendable {
        func locationManager(_ manager: CLLocationManager, didUpdateLocations locations: [CLLocation]) {
            calls.record("subclass:locations")
        }
    }

    func deliverOneLocation(to delegate: any CLLocationManagerDelegate) throws {
        let h = try MonitoringHarness()
        let manager = CLLocationManager(runtime: h.runtime, target: h.target)
        manager.delegate = delegate
        h.target.runPending()
        manager.requestLocation()
        h.advance(by: 5)
        #expect(manager.location != nil, "a location was delivered")
        withExtendedLifetime(manager) {}
    }

    @Test func aSubclassOverrideOfAMethodTheBaseImplementsIsCalled() throws {
        let delegate = OverridingSubclass()
        try deliverOneLocation(to: delegate)
        #expect(delegate.calls.all == ["subclass:authorization", "base:authorization", "subclass:locations"])
    }

    /// What still differs from iOS: with no implementation in the conforming class, the protocol's
    /// default is the witness, and the subclass's method is never called. If this starts failing,
    /// Swift gained dynamic witnesses: update the README row and decision 0013.
    @Test func aMethodOnlyTheSubclassDeclaresIsNotCalled() throws {
        let delegate = SubclassOnly()
        try deliverOneLocation(to: delegate)
        #expect(delegate.calls.all.isEmpty)
    }
}
