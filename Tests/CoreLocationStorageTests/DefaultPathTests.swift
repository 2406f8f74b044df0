import CoreLocationStorage
import Testing

@Suite struct DefaultPathTests {
    @Test func explicitOverrideWins() {
        let path = AuthorizationStore.defaultPath(environment: [
            "CORELOCATION_DATABASE": "/tmp/test/db.sqlite",
            "XDG_DATA_HOME": "/home/ada/data",
            "HOME": "/home/ada",
        ])
        #expect(path == "/tmp/test/db.sqlite")
    }

    @Test func absoluteXDGDataHome() {
        let path = AuthorizationStore.defaultPath(environment: ["XDG_DATA_HOME": "/home/ada/data", "HOME": "/home/ada"])
        #expect(path == "/home/ada/data/corelocation/corelocation.sqlite")
    }

    @Test func trailingSlashInXDGDataHomeDoesNotDoubleTheSeparator() {
        let path = AuthorizationStore.defaultPath(environment: ["XDG_DATA_HOME": "/data/", "HOME": "/home/ada"])
        #expect(path == "/data/corelocation/corelocation.sqlite")
    }

    @Test(arguments: ["data", "./data", "~/data", ""])
    func relativeOrEmptyXDGDataHomeIsIgnored(xdg: String) {
        let path = AuthorizationStore.defaultPath(environment: ["XDG_DATA_HOME": xdg, "HOME": "/home/ada"])
        #expect(path == "/home/ada/.local/share/corelocation/corelocation.sqlite")
    }

    @Test func homeFallback() {
        let path = AuthorizationStore.defaultPath(environment: ["HOME": "/home/ada"])
        #expect(path == "/home/ada/.local/share/corelocation/corelocation.sqlite")
    }

    @Test func emptyOverrideIsIgnored() {
        let path = AuthorizationStore.defaultPath(environment: ["CORELOCATION_DATABASE": "", "HOME": "/home/ada"])
        #expect(path == "/home/ada/.local/share/corelocation/corelocation.sqlite")
    }
}
