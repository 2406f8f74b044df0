// The multi-call binary (docs/decisions/0101): `locationd` and `locationctl` in one executable, run as the one or
// the other by the name it is called under. The package installs it once, as `/usr/bin/locationd` and
// `/usr/bin/locationctl`, two hard links to one file: half the installed size of two programs that link the same
// libraries.
import Foundation
import LocationctlCommand
import LocationdCommand

/// The programs this binary is, by name.
enum Program: String, CaseIterable {
    case locationd, locationctl

    /// The program for a path's last component, if it names one.
    init?(path: String) {
        self.init(rawValue: (path as NSString).lastPathComponent)
    }
}

/// Which program to run, and its arguments (argv without the program name).
///
/// The name the kernel reports first (`/proc/self/exe`, which names the hard link the process was started through):
/// the daemon recognises `locationctl` by that very path (DaemonCore+SettingsAccess), so the code that runs under
/// `/usr/bin/locationctl` is always locationctl's, whatever argv[0] says. Then argv[0], for a symbolic link or a
/// copy under another name; then the first argument (`corelocation locationctl status`).
func choose(executable: String?, arguments: [String]) -> (Program, [String])? {
    if let executable, let program = Program(path: executable) {
        return (program, Array(arguments.dropFirst()))
    }
    if let first = arguments.first, let program = Program(path: first) {
        return (program, Array(arguments.dropFirst()))
    }
    if arguments.count > 1, let program = Program(rawValue: arguments[1]) {
        return (program, Array(arguments.dropFirst(2)))
    }
    return nil
}

func run() async {
    let arguments = CommandLine.arguments
    let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    guard let (program, rest) = choose(executable: executable, arguments: arguments) else {
        let name = arguments.first.map { ($0 as NSString).lastPathComponent } ?? "corelocation"
        let names = Program.allCases.map(\.rawValue).joined(separator: " and ")
        FileHandle.standardError.write(Data("""
            \(name): Core Location's multi-call binary: \(names) in one executable, run by the name it is called \
            under (a hard link named locationd or locationctl), or by its first argument:
              \(name) locationd [OPTIONS]
              \(name) locationctl SUBCOMMAND [OPTIONS]

            """.utf8))
        exit(64)  // EX_USAGE
    }
    switch program {
    case .locationd: await LocationdProgram.main(arguments: rest)
    case .locationctl: await LocationctlProgram.main(arguments: rest)
    }
}

await run()
