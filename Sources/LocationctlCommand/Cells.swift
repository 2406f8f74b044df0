import ArgumentParser
import CoreLocationCellular
import CoreLocationNetwork
import Foundation

extension LocationCtl {
    /// `locationctl cells`: the offline cell table (docs/decisions/0034).
    struct Cells: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cells",
            abstract: "Cell positioning: import a cell table, look a cell up.",
            discussion: """
                The modem source turns the serving cell into a position from a cell table you import once \
                (nothing is downloaded by locationctl): OpenCelliD's cell_towers.csv(.gz) (CC BY-SA 4.0) or a \
                Mozilla Location Service dump (CC0), both in the same CSV layout. The table is an SQLite file: \
                --table, else $CORELOCATION_CELL_TABLE, else $XDG_DATA_HOME/corelocation/cells.sqlite.

                Examples:
                  locationctl cells import cell_towers.csv.gz
                  locationctl cells lookup 262,01,0,1A60103,2B67 --radio LTE
                """,
            subcommands: [Import.self, Lookup.self]
        )
    }
}

extension LocationCtl.Cells {
    struct TableOption: ParsableArguments {
        @Option(help: ArgumentHelp("The cell table file.", valueName: "path"))
        var table: String?

        var path: String { table ?? CellTable.defaultPath(environment: ProcessInfo.processInfo.environment) }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import a CSV in OpenCelliD's layout (plain or .gz) into the cell table; bad rows are skipped.")

        @Argument(help: ArgumentHelp("The CSV file.", valueName: "FILE.csv[.gz]"))
        var file: String

        @OptionGroup var table: TableOption

        @Option(help: "Output format (text or json).")
        var format: OutputFormat = .text

        func validate() throws {
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw ValidationError("\(file): no such readable file")
            }
            guard format == .text || format == .json else { throw ValidationError("cells import prints text or json") }
        }

        func run() throws {
            let path = table.path
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let started = Date()
            let report: CellImportReport
            do {
                report = try CellTableImporter.importCSV(from: file, into: path)
            } catch let error as CellError {
                throw CellsFailure(description: error.message)
            }
            if format == .json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
                return
            }
            let seconds = Date().timeIntervalSince(started)
            print("Imported \(report.imported) cell(s) into \(path) in \(String(format: "%.1f", seconds)) s; the table has \(report.total).")
            if report.olderDuplicates > 0 { print("Kept \(report.olderDuplicates) more recent row(s) already there.") }
            if report.skipped > 0 {
                print("Skipped \(report.skipped) bad line(s), e.g.:")
                for example in report.examples { print("  \(example)") }
            }
            if let warning = report.warning { print("Warning: \(warning)") }
        }
    }

    struct Lookup: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lookup",
            abstract: "Where the table puts a cell given as ModemManager prints it (MCC,MNC,LAC,CI[,TAC], hex).")

        @Argument(help: ArgumentHelp("The 3GPP location string.", valueName: "MCC,MNC,LAC,CI[,TAC]"))
        var cell: String

        @Option(help: ArgumentHelp("The radio (GSM, UMTS, CDMA, LTE, NR).", valueName: "radio"))
        var radio: String?

        @OptionGroup var table: TableOption

        func validate() throws {
            if let radio, CellRadio(csvName: radio.uppercased()) == nil {
                throw ValidationError("--radio must be GSM, UMTS, CDMA, LTE or NR")
            }
        }

        func run() throws {
            do {
                let identity = try CellIdentity(modemManager: cell, radio: radio.flatMap { CellRadio(csvName: $0.uppercased()) })
                let cells = try CellTable(path: table.path)
                guard let found = try cells.lookup(identity) else {
                    throw CellError(.unknownCell, "\(identity): not in \(cells.path)")
                }
                print(
                    "\(identity): \(String(format: "%.6f", found.latitude)), \(String(format: "%.6f", found.longitude))"
                        + " ±\(Int(found.horizontalAccuracy)) m (\(found.radio), \(found.samples) samples)")
            } catch let error as CellError {
                throw CellsFailure(description: error.message)
            }
        }
    }
}

/// A failure of `locationctl cells` (exit status 1, the message on stderr).
struct CellsFailure: Error, CustomStringConvertible {
    var description: String
}
