import Foundation
import CoreLocationStorage
import Testing

/// The daemon's background state (decision 0026): sequence numbers, acknowledgement, expiry, the
/// relaunch switch, on both backings and across a reopen.
@Suite struct BackgroundStoreTests {
    static func target(_ app: String = "org.example.bg") -> LaunchTarget {
        LaunchTarget(
            uid: 1000, appID: app, executable: "/usr/bin/tracker", arguments: ["--quiet"], workingDirectory: "/home/u",
            environment: ["HOME": "/home/u"], unit: nil,
            fingerprint: FileFingerprint(device: 1, inode: 2, size: 3, modified: 4, owner: 1000), registeredAt: 10)
    }

    static func append(_ store: BackgroundStore, _ kind: String, at time: Double, expires: Double = 1e12) throws -> UInt64 {
        try store.append(uid: 1000, appID: "org.example.bg", kind: kind, payload: Data(kind.utf8), created: time, expires: expires)
    }

    @Test func sequenceNumbersIncreaseAndAreNeverReused() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/d.sqlite"
            do {
                let store = BackgroundStore(database: try LocationDatabase(path: path))
                try store.register(Self.target())
                #expect(try Self.append(store, "enter", at: 1) == 1)
                #expect(try Self.append(store, "exit", at: 2) == 2)
                #expect(try store.acknowledge(uid: 1000, appID: "org.example.bg", through: 2) == 2)
                #expect(try store.pending(uid: 1000, appID: "org.example.bg").isEmpty)
            }
            // Reopened (a daemon restart): numbering goes on after the acknowledged events.
            let store = BackgroundStore(database: try LocationDatabase(path: path))
            #expect(try Self.append(store, "enter", at: 3) == 3)
            #expect(try store.pending(uid: 1000, appID: "org.example.bg").map(\.sequence) == [3])
            #expect(try store.pending(uid: 1000, appID: "org.example.bg").first?.payload == Data("enter".utf8))
        }
    }

    @Test func acknowledgingForgetsOnlyUpToTheNumber() throws {
        let store = BackgroundStore(database: try LocationDatabase.inMemory())
        try store.register(Self.target())
        for time in 1...4 { _ = try Self.append(store, time % 2 == 1 ? "enter" : "exit", at: Double(time)) }
        #expect(try store.acknowledge(uid: 1000, appID: "org.example.bg", through: 2) == 2)
        #expect(try store.pending(uid: 1000, appID: "org.example.bg").map(\.sequence) == [3, 4])
        #expect(try store.acknowledge(uid: 1000, appID: "org.example.bg", through: 2) == 0)
    }

    @Test func expiredEventsGoWithARecord() throws {
        let store = BackgroundStore(database: try LocationDatabase.inMemory())
        try store.register(Self.target())
        _ = try Self.append(store, "enter", at: 1, expires: 100)
        _ = try Self.append(store, "exit", at: 2, expires: 300)
        try store.recordLaunch(uid: 1000, appID: "org.example.bg", at: 50)
        let expired = try store.expire(now: 200)
        #expect(expired.map(\.event.sequence) == [1])
        #expect(expired.first?.event.attempts == 1)
        #expect(try store.pending(uid: 1000, appID: "org.example.bg").map(\.sequence) == [2])
        #expect(try store.records().map(\.what) == ["expired event 1 (enter) after 1 launch(es)"])
        #expect(try store.launches(uid: 1000, appID: "org.example.bg") == [50])
    }

    @Test func reRegisteringKeepsTheSwitchAndUnknownAppsAreRefused() throws {
        let store = BackgroundStore(database: try LocationDatabase.inMemory())
        try store.register(Self.target())
        #expect(try store.setEnabled(false, uid: 1000, appID: "org.example.bg"))
        var moved = Self.target()
        moved.arguments = ["--verbose"]
        try store.register(moved)
        let stored = try #require(try store.target(uid: 1000, appID: "org.example.bg"))
        #expect(!stored.enabled)
        #expect(stored.arguments == ["--verbose"])
        #expect(try !store.setEnabled(true, uid: 1000, appID: "org.example.other"))
        #expect(throws: StorageError.self) {
            try store.append(uid: 1000, appID: "org.example.other", kind: "enter", payload: Data(), created: 1, expires: 2)
        }
    }
}
