import ArgumentParser
import SubRecon


/// `subrecon import FILE|-`
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store receipts handed over by the app server (CSV or JSON Lines).",
        discussion: """
            CSV has the header `user_id,receipt_data` and optionally `product_id`, `environment`; \
            JSON Lines has the same keys. Any bad row is reported as FILE:LINE: reason and then \
            nothing from the file is imported (exit 65). Receipt data already stored for that user \
            is skipped and counted.

            Examples:
              subrecon import receipts.csv
              app-server-export | subrecon import --format jsonl -
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The file to import, or - for standard input.")
    var file: String

    @Option(help: "csv or jsonl (default: from the file extension, else from the content).")
    var format: ImportFormat?

    func run() async throws {
        _ = global.makeLogger()
        let database = try global.openDatabase()
        do {
            let summary = try await ReceiptImporter(database: database)
                .importFile(path: file, format: format, nowMs: ReconciliationJob.wallClockMs())
            Console.out("imported \(summary.imported) receipt(s); \(summary.alreadyStored) already stored (skipped)\n")
        } catch {
            Console.error(error.description)
            throw ExitCode(error.exitCode)
        }
    }
}

extension ImportFormat: ExpressibleByArgument {}
