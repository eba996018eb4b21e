import ArgumentParser
import SubRecon
import SubReconModel

/// `subrecon import FILE|-`
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store receipts handed over by the app server (CSV or JSON Lines).",
        discussion: """
            CSV has the header `user_id,receipt_data` and optionally `product_id`, `environment`, \
            `transaction_id`; JSON Lines has the same keys. In server-api mode \
            (SUBRECON_APPLE_API=server-api) a row may carry a transaction_id and no receipt data. Any bad row is reported as FILE:LINE: reason and then \
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

    @Option(help: "verify-receipt or server-api (SUBRECON_APPLE_API): server-api accepts rows with only a transaction_id.")
    var appleAPI: String?

    func run() async throws {
        let result = try await global.context().importReceipts(file: file, format: format, appleAPIFlag: appleAPI)
        Console.out("imported \(result.summary.imported) receipt(s); \(result.summary.alreadyStored) already stored (skipped)\n")
        if result.summary.tokensRegistered > 0 {
            Console.out("\(result.summary.tokensRegistered) app account token(s) registered for their users\n")
        }
        if result.summary.appNamed > 0 {
            Console.out("\(result.summary.appNamed) receipt(s) stored before without an app now name theirs\n")
        }
        if result.linked > 0 { Console.out("linked \(result.linked) waiting notification(s) to their receipts\n") }
    }
}

extension ImportFormat: ExpressibleByArgument {}
