import ArgumentParser
import Foundation
import SubRecon

/// `subrecon report KIND`
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Export CSV: subscriptions, renewals, runs, run-items.",
        discussion: """
            RFC 4180 CSV, UTF-8, header row. A cell starting with = + - @ tab or CR gets a leading '
            so spreadsheets never run it as a formula. --output writes the file atomically (mode 0600).

            Examples:
              subrecon report subscriptions --output subscriptions.csv
              subrecon report run-items --run 42
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "subscriptions, renewals, runs or run-items.")
    var kind: ReportKind

    @Option(help: "Write to this file instead of standard output.")
    var output: String?

    @Option(name: .customLong("run"), help: "For run-items: the run id (default: the latest run).")
    var runID: Int64?

    func validate() throws {
        if runID != nil, kind != .runItems { throw ValidationError("--run applies only to run-items") }
    }

    func run() async throws {
        _ = global.makeLogger()
        let database = try global.openDatabase()
        let exporter = ReportExporter(database: database)
        do {
            if let output {
                try AtomicFile.write(to: output) { handle in
                    try exporter.export(kind, runID: runID) { handle.write($0) }
                }
            } else {
                let stdout = FileHandle.standardOutput
                try exporter.export(kind, runID: runID) { stdout.write($0) }
            }
        } catch {
            Console.error(error.description)
            if case .unknownRun = error { throw ExitCode(2) }
            throw ExitCode(74)
        }
    }
}

extension ReportKind: ExpressibleByArgument {}
