import CoreLocationStorage
import Foundation
import Testing

@testable import LocationdCommand

/// What of a process's environment locationd stores to start it again: its own variables and where its files are,
/// never the reporter's server password (issue 37, item 8).
@Suite struct LaunchTargetEnvironmentTests {
    @Test func theReportersCredentialsAreNeverStored() {
        #expect(LaunchTarget.keeps("CORELOCATION_INFO_PLIST"))
        #expect(LaunchTarget.keeps("CORELOCATION_DAEMON_SOCKET"))
        #expect(LaunchTarget.keeps("HOME") && LaunchTarget.keeps("XDG_CONFIG_HOME"))
        #expect(!LaunchTarget.keeps("CORELOCATION_REPORT_CREDENTIALS"))
        #expect(!LaunchTarget.keeps("CORELOCATION_LAUNCH_REASON"))
        #expect(!LaunchTarget.keeps("AWS_SECRET_ACCESS_KEY"))
    }
}
