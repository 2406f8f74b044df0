import ArgumentParser
import CoreLocationCellular
import CoreLocationNetwork
import CoreLocation

/// The command-line tool's entry point, for the programs that run it: the `locationctl` executable and the
/// multi-call binary (`corelocation`, installed as `locationd` and `locationctl`: docs/decisions/0101). No `@main`
/// here: two `@main` async commands linked into one program give one weak async entry symbol twice.
public enum LocationctlProgram {
    /// Runs `locationctl` with `arguments` (argv without the program name); exits the process on an error.
    public static func main(arguments: [String]) async {
        await LocationCtl.main(arguments: arguments)
    }
}

struct LocationCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "locationctl",
        abstract: "Use and inspect Core Location on Linux.",
        discussion: """
            Try a simulated drive first — no hardware needed:

              locationctl track --simulate drive --speed 10
              locationctl locate --simulate 48.8584,2.2945
              locationctl authorize --list

            Apps and locationctl itself need location authorization, as on iOS. With a terminal you \
            are asked (Allow Once / Allow While Using App / Don't Allow); otherwise the stored decision \
            or the default policy applies. `locationctl authorize` plays the Settings app.
            """,
        subcommands: [
            Locate.self, Track.self, Monitor.self, Authorize.self, Agent.self, Status.self, Services.self, Sources.self,
            Magnetic.self, Heading.self, Geocode.self, Reverse.self, Render.self, Plist.self, Network.self, Report.self,
            Cells.self,
            Background.self,
            Beacons.self,
        ]
    )

    static func main(arguments: [String]) async {
        LogSetup.bootstrap()
        // ip:, wifi:, modem: source URLs (docs/decisions/0038).
        NetworkSourceMakers.register()
        ModemSourceMakers.register()
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

/// Exit codes, from sysexits(3), so scripts can tell failures apart.
enum ExitCodes {
    /// The app is not authorized (EX_NOPERM).
    static let notAuthorized = ExitCode(77)
    /// No location could be had (EX_UNAVAILABLE).
    static let noLocation = ExitCode(69)
    /// The input holds no usable data, e.g. a file without one NMEA sentence (EX_DATAERR).
    static let dataError = ExitCode(65)
}
