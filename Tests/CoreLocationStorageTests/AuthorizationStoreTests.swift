import Foundation
import GRDB
import CoreLocationEngine
import CoreLocationStorage
import Testing

/// The two backings every store test runs on, as STYLE.md asks.
enum Backing: String, CaseIterable, CustomTestStringConvertible {
    case inMemory
    case onDisk

    var testDescription: String { rawValue }

    func withStore(_ body: (AuthorizationStore) throws -> Void) throws {
        switch self {
        case .inMemory:
            try body(AuthorizationStore.inMemory())
        case .onDisk:
            try withTemporaryDirectory { directory in
                try body(AuthorizationStore(path: directory + "/corelocation.sqlite"))
            }
        }
    }
}

/// A whole number of milliseconds since 1970, which GRDB's date format keeps exactly.
private let decisionTime = Date(timeIntervalSince1970: 1_700_000_000.25)

@Suite struct AuthorizationStoreTests {
    @Test(arguments: Backing.allCases)
    func roundTripsEveryLevelAndAccuracy(backing: Backing) throws {
        try backing.withStore { store in
            var saved: [AuthorizationDecision] = []
            for (index, level) in AuthorizationLevel.allCases.enumerated() {
                for accuracy in AccuracyLevel.allCases {
                    let decision = AuthorizationDecision(
                        appID: "org.example.\(level.rawValue).\(accuracy.rawValue)",
                        level: level,
                        accuracy: accuracy,
                        decidedAt: decisionTime.addingTimeInterval(Double(index) * 60),
                        provisional: level == .whenInUse && accuracy == .full,
                        usageDescription: accuracy == .full ? "Shows trails near you — « ici »" : nil
                    )
                    try store.save(decision)
                    saved.append(decision)
                }
            }
            for decision in saved {
                #expect(try store.decision(for: decision.appID) == decision)
            }
            #expect(try store.allDecisions().count == 10)
        }
    }

    @Test(arguments: Backing.allCases)
    func saveReplacesAndResetForgets(backing: Backing) throws {
        try backing.withStore { store in
            let app = "/usr/local/bin/trail-logger"
            #expect(try store.decision(for: app) == nil)
            let first = AuthorizationDecision(appID: app, level: .whenInUse, decidedAt: decisionTime, provisional: true)
            try store.save(first)
            #expect(try store.decision(for: app) == first)
            let upgraded = AuthorizationDecision(
                appID: app,
                level: .always,
                accuracy: .reduced,
                decidedAt: decisionTime.addingTimeInterval(3600)
            )
            try store.save(upgraded)
            #expect(try store.decision(for: app) == upgraded)
            #expect(try store.allDecisions() == [upgraded])

            try store.save(AuthorizationDecision(appID: "org.example.other", level: .denied, decidedAt: decisionTime))
            try store.reset(appID: app)
            #expect(try store.decision(for: app) == nil)
            #expect(try store.allDecisions().map(\.appID) == ["org.example.other"])
            // Resetting an app without a decision is not an error.
            try store.reset(appID: app)
        }
    }

    @Test(arguments: Backing.allCases)
    func listsDecisionsInByteOrderOfAppID(backing: Backing) throws {
        try backing.withStore { store in
            // Expected order written out by hand from the ASCII table: '/' < 'Z' < 'a' < 'c' < 'é'.
            let expected = ["/opt/app/bin/a", "Zeta", "alpha", "com.example.a", "com.example.b", "éclair"]
            var generator = SeededGenerator(seed: 0x5EED_0001)
            for appID in expected.shuffled(using: &generator) {
                try store.save(AuthorizationDecision(appID: appID, level: .denied, decidedAt: decisionTime))
            }
            #expect(try store.allDecisions().map(\.appID) == expected)
        }
    }

    @Test(arguments: Backing.allCases)
    func defaultPolicySetGetAndClear(backing: Backing) throws {
        try backing.withStore { store in
            #expect(try store.defaultPolicy() == nil)
            for policy in DefaultPolicy.allCases {
                try store.setDefaultPolicy(policy)
                #expect(try store.defaultPolicy() == policy)
            }
            try store.setDefaultPolicy(nil)
            #expect(try store.defaultPolicy() == nil)
            // The policy is a setting, not a decision.
            #expect(try store.allDecisions().isEmpty)
        }
    }

    @Test func datesKeepMillisecondsAndDropTheRest() throws {
        let store = try AuthorizationStore.inMemory()
        let precise = Date(timeIntervalSince1970: 1_700_000_000.123_456)
        try store.save(AuthorizationDecision(appID: "a", level: .always, decidedAt: precise))
        let stored = try #require(try store.decision(for: "a")).decidedAt
        #expect(abs(stored.timeIntervalSince(precise)) < 0.001)
    }

    @Test func unknownStoredValueIsAnInvalidValueError() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/corelocation.sqlite"
            let store = try AuthorizationStore(path: path)
            try store.setDefaultPolicy(.deny)
            // What a newer version (or a hand edit) could leave behind.
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO authorizationDecision (appID, level, accuracy, decidedAt, provisional)
                    VALUES ('org.example.future', 'sometimes', 'full', '2024-01-01 00:00:00.000', 0)
                    """)
                try db.execute(sql: "UPDATE setting SET value = 'ask-twice' WHERE key = 'defaultPolicy'")
            }
            try queue.close()

            let error = #expect(throws: StorageError.self) { try store.decision(for: "org.example.future") }
            #expect(error?.code == .invalidValue)
            #expect(error?.message.contains("sometimes") == true)
            let policyError = #expect(throws: StorageError.self) { try store.defaultPolicy() }
            #expect(policyError?.code == .invalidValue)
            // Catch-by-code, as callers write it.
            do {
                _ = try store.allDecisions()
                Issue.record("listing should fail on an unknown level")
            } catch StorageError.Code.invalidValue {
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }
}
