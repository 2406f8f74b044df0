import ArgumentParser
import CoreLocation
import CoreLocationRuntime
import Foundation

extension LocationCtl.Plist {
    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "install",
            abstract: "Copy an Info.plist beside a built executable, where Bundle.main and Core Location read it.",
            discussion: """
                The directory is --bin-path, else what `swift build --show-bin-path` prints for the \
                package in --package-path. Every executable in that directory shares the file, as \
                Foundation reads one Info.plist per directory. Run it again after `swift package clean`.
                """
        )

        @Option(help: ArgumentHelp("The Info.plist to install.", valueName: "path"))
        var input = "Info.plist"

        @Option(help: "The executable product it is for (checked to exist in the products directory).")
        var product: String?

        @Option(
            name: .customLong("bin-path"),
            help: ArgumentHelp("The directory holding the executable.", valueName: "dir"))
        var binPath: String?

        @Option(
            name: .customLong("package-path"),
            help: ArgumentHelp("The package (for swift build --show-bin-path).", valueName: "dir"))
        var packagePath = "."

        @Option(name: [.customShort("c"), .customLong("configuration")], help: "debug or release.")
        var configuration = "debug"

        func validate() throws {
            guard configuration == "debug" || configuration == "release" else {
                throw ValidationError("--configuration is debug or release")
            }
            if product == nil, binPath == nil {
                throw ValidationError("Name the executable with --product NAME, or the directory with --bin-path DIR")
            }
            if let product, product.isEmpty || product.contains("/") {
                throw ValidationError("--product is the executable's name, without a directory")
            }
        }

        func run() throws {
            let plist: [String: Any]
            do {
                let data = try Data(contentsOf: URL(fileURLWithPath: input))
                let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                guard let dictionary = object as? [String: Any] else { throw CocoaError(.propertyListReadCorrupt) }
                plist = dictionary
            } catch {
                printError("Cannot read \(input) as a property list: \(error.localizedDescription)")
                printError("Write one with `locationctl plist init`.")
                throw ExitCode(66)
            }
            if !plist.keys.contains(where: { $0.hasPrefix("NSLocation") }) {
                printError(
                    "Note: \(input) has no NSLocation… usage description; authorization requests will be ignored.")
            }
            let directory = try binPath ?? showBinPath()
            if let product {
                let executable = (directory as NSString).appendingPathComponent(product)
                guard FileManager.default.isExecutableFile(atPath: executable) else {
                    printError(
                        "No executable \(product) in \(directory); build it first (swift build --product \(product)).")
                    throw ExitCode(66)
                }
            }
            let destination = AppIdentity.foundationInfoPlistPath(executableDirectory: directory)
            do {
                if FileManager.default.fileExists(atPath: destination) {
                    try FileManager.default.removeItem(atPath: destination)
                }
                try FileManager.default.copyItem(atPath: input, toPath: destination)
            } catch {
                printError("Cannot copy \(input) to \(destination): \(error.localizedDescription)")
                throw ExitCode(73)
            }
            print("Installed \(destination)")
        }

        /// Asks SwiftPM where the products of `configuration` go.
        private func showBinPath() throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [
                "swift", "build", "--show-bin-path", "--package-path", packagePath, "-c", configuration,
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardInput = FileHandle.nullDevice
            do {
                try process.run()
            } catch {
                printError("Cannot run swift: \(error.localizedDescription); give the directory with --bin-path.")
                throw ExitCode(69)
            }
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let path = String(decoding: data, as: UTF8.self)
                .split(separator: "\n").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard process.terminationStatus == 0, path.hasPrefix("/") else {
                printError(
                    "`swift build --show-bin-path` failed in \(packagePath); give the directory with --bin-path.")
                throw ExitCode(69)
            }
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return path
        }
    }
}
