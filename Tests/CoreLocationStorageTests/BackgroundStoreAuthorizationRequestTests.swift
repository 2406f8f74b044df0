import CoreLocationStorage
import Testing

/// Issue 37: the request a background app made, kept with its launch target so that a restarted locationd asks the
/// headless policy again for it.
@Suite struct BackgroundStoreAuthorizationRequestTests {
    static let app = BackgroundStoreServicesTests.app

    @Test func alwaysIsKeptOverALaterWhenInUseAndSurvivesReRegistration() throws {
        let store = try BackgroundStoreServicesTests.store()
        #expect(try store.authorizationRequest(uid: 1000, appID: Self.app) == nil, "asked nothing yet")
        #expect(try store.setAuthorizationRequest(always: false, uid: 1000, appID: Self.app))
        #expect(try store.authorizationRequest(uid: 1000, appID: Self.app) == false)
        #expect(try store.setAuthorizationRequest(always: true, uid: 1000, appID: Self.app))
        #expect(try store.setAuthorizationRequest(always: false, uid: 1000, appID: Self.app))
        #expect(try store.authorizationRequest(uid: 1000, appID: Self.app) == true, "Always is not taken back")
        try store.register(BackgroundStoreTests.target())
        #expect(try store.authorizationRequest(uid: 1000, appID: Self.app) == true)
    }

    @Test func anAppWithoutALaunchTargetHasNoRequestStored() throws {
        let store = try BackgroundStoreServicesTests.store()
        #expect(try !store.setAuthorizationRequest(always: true, uid: 1000, appID: "org.example.unknown"))
        #expect(try store.authorizationRequest(uid: 1000, appID: "org.example.unknown") == nil)
        #expect(try store.authorizationRequest(uid: 1001, appID: Self.app) == nil, "per user")
    }
}
