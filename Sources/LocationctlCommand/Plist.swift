import ArgumentParser
import Foundation

extension LocationCtl {
    struct Plist: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plist",
            abstract: "Write an app's Info.plist and put it where Core Location and Bundle.main both read it.",
            discussion: """
                On Linux an executable's "bundle" is its directory: Foundation's Bundle.main reads \
                Info.plist beside the executable (Resources/Info.plist when a Resources directory is \
                there), and so does Core Location. Code that checks Bundle.main for the usage \
                description before asking (as many location wrappers do) then finds it too.

                Examples:
                  locationctl plist init --identifier com.example.tracker --when-in-use "Shows where you are."
                  locationctl plist install --product tracker
                  locationctl plist install --product tracker --configuration release
                  locationctl plist install --bin-path /usr/lib/tracker
                """,
            subcommands: [Init.self, Install.self]
        )
    }
}

extension LocationCtl.Plist {
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "init",
            abstract: "Write a template Info.plist with the location usage descriptions.",
            discussion: """
                The file is an XML property list, as Xcode writes. Without --always only the \
                when-in-use description is written (requestAlwaysAuthorization() then does nothing, \
                as on iOS).
                """
        )

        @Option(help: "CFBundleIdentifier: the name your authorization is stored under (e.g. com.example.tracker).")
        var identifier: String?

        @Option(help: "CFBundleName: the name shown when asking for authorization.")
        var name: String?

        @Option(
            name: .customLong("when-in-use"),
            help: "NSLocationWhenInUseUsageDescription: why the app wants your location.")
        var whenInUse = "This app uses your location while you use it."

        @Option(help: "NSLocationAlwaysAndWhenInUseUsageDescription: why the app wants it in the background too.")
        var always: String?

        @Flag(
            name: .customLong("reduced-accuracy"),
            help: "NSLocationDefaultAccuracyReduced: ask for approximate locations.")
        var reducedAccuracy = false

        @Option(help: ArgumentHelp("Where to write the file.", valueName: "path"))
        var output = "Info.plist"

        @Flag(help: "Replace an existing file.")
        var force = false

        func validate() throws {
            if whenInUse.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw ValidationError(
                    "--when-in-use needs a non-empty description (Core Location ignores an empty one)")
            }
            if let always, always.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                throw ValidationError("--always needs a non-empty description")
            }
            if let identifier, identifier.isEmpty || identifier.contains(where: \.isWhitespace) {
                throw ValidationError(
                    "--identifier must be a reverse-DNS name without spaces, e.g. com.example.tracker")
            }
            if output.isEmpty { throw ValidationError("--output needs a path") }
        }

        func run() throws {
            var plist: [String: Any] = [
                "CFBundleInfoDictionaryVersion": "6.0",
                "NSLocationWhenInUseUsageDescription": whenInUse,
            ]
            if let identifier { plist["CFBundleIdentifier"] = identifier }
            if let name { plist["CFBundleName"] = name }
            if let always { plist["NSLocationAlwaysAndWhenInUseUsageDescription"] = always }
            if reducedAccuracy { plist["NSLocationDefaultAccuracyReduced"] = true }
            let data = try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)
            if !force, FileManager.default.fileExists(atPath: output) {
                printError("\(output) exists; use --force to replace it")
                throw ExitCode(73)
            }
            do {
                try data.write(to: URL(fileURLWithPath: output), options: .atomic)
            } catch {
                printError("Cannot write \(output): \(error.localizedDescription)")
                throw ExitCode(73)
            }
            print("Wrote \(output)")
            if identifier == nil {
                print("No --identifier: the app is then known by its executable's path.")
            }
            print("Next: `locationctl plist install --product NAME` puts it beside the built executable.")
        }
    }
}
