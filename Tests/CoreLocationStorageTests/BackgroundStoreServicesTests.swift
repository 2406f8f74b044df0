import CoreLocationEngine
import CoreLocationStorage
import Foundation
import Testing

/// Decision 0039's storage: acknowledgement per channel of kinds, the next expiry the sweep sleeps
/// until, the services an app keeps in the background, and a crossing stored with its region state.
@Suite struct BackgroundStoreServicesTests {
    static let app = "org.example.bg"

    static func store() throws -> BackgroundStore {
        let store = BackgroundStore(database: try LocationDatabase.inMemory())
        try store.register(BackgroundStoreTests.target())
        return store
    }

    static func append(_ store: BackgroundStore, _ kind: String, expires: Double = 1e12) throws -> UInt64 {
        try store.append(uid: 1000, appID: app, kind: kind, payload: Data(kind.utf8), created: 0, expires: expires)
    }

    @Test func acknowledgingOneChannelLeavesTheOtherKinds() throws {
        let store = try Self.store()
        #expect(try Self.append(store, "significant-change") == 1)
        #expect(try Self.append(store, "visit") == 2)
        #expect(try Self.append(store, "enter") == 3)
        // The delegate channel handed up to 3: the significant change (1) stays for its taker.
        #expect(try store.acknowledge(uid: 1000, appID: Self.app, through: 3, kinds: ["enter", "exit", "visit"]) == 2)
        #expect(try store.pending(uid: 1000, appID: Self.app).map(\.kind) == ["significant-change"])
        #expect(try store.acknowledge(uid: 1000, appID: Self.app, through: 1, kinds: ["significant-change"]) == 1)
        #expect(try store.pending(uid: 1000, appID: Self.app).isEmpty)
    }

    @Test func nextExpiryIsTheEarliestPendingOne() throws {
        let store = try Self.store()
        #expect(try store.nextExpiry() == nil)
        _ = try Self.append(store, "enter", expires: 300)
        _ = try Self.append(store, "exit", expires: 200)
        #expect(try store.nextExpiry() == 200)
        _ = try store.expire(now: 250)
        #expect(try store.nextExpiry() == 300)
        _ = try store.expire(now: 300)
        #expect(try store.nextExpiry() == nil)
    }

    @Test func servicesAreKeptPerAppAndSurviveReRegistration() throws {
        let store = try Self.store()
        #expect(try store.services(uid: 1000, appID: Self.app).isEmpty)
        #expect(try store.setService("visits", on: true, uid: 1000, appID: Self.app))
        #expect(try store.setService("significant-changes", on: true, uid: 1000, appID: Self.app))
        try store.register(BackgroundStoreTests.target())
        #expect(try store.services(uid: 1000, appID: Self.app) == ["visits", "significant-changes"])
        #expect(try store.setService("visits", on: false, uid: 1000, appID: Self.app))
        #expect(try store.services(uid: 1000, appID: Self.app) == ["significant-changes"])
        #expect(try !store.setService("visits", on: true, uid: 1000, appID: "org.example.unknown"))
    }

    @Test func aCrossingIsStoredWithItsRegionState() throws {
        let store = try Self.store()
        let regions = RegionStore(database: store.database)
        let region = MonitoredRegion(identifier: "home", latitude: 1, longitude: 2, radius: 100)
        try regions.save(StoredRegion(region: region, state: .outside), appID: Self.app)
        _ = try store.append(
            uid: 1000, appID: Self.app, kind: "enter", payload: Data(), created: 0, expires: 1e12,
            region: (StoredRegion(region: region, state: .inside), Self.app))
        #expect(try regions.regions(appID: Self.app).map(\.state) == [.inside])
        // No launch target: neither the event nor the state is written.
        #expect(throws: (any Error).self) {
            try store.append(
                uid: 1000, appID: "org.example.unknown", kind: "exit", payload: Data(), created: 0, expires: 1e12,
                region: (StoredRegion(region: region, state: .outside), Self.app))
        }
        #expect(try regions.regions(appID: Self.app).map(\.state) == [.inside])
    }
}
