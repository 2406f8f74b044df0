// The `locationctl` executable: the command-line tool alone (its code is the LocationctlCommand library, which the
// multi-call `corelocation` also runs: docs/decisions/0101). `swift run locationctl …` and the tests run this one.
import LocationctlCommand

await LocationctlProgram.main(arguments: Array(CommandLine.arguments.dropFirst()))
