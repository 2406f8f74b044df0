// The `locationd` executable: the daemon alone (its code is the LocationdCommand library, which the multi-call
// `corelocation` also runs: docs/decisions/0101). Tests and the README run `.build/debug/locationd`.
import LocationdCommand

await LocationdProgram.main(arguments: Array(CommandLine.arguments.dropFirst()))
