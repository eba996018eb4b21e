import ArgumentParser
import SubRecon
import SubReconModel
import SubReconStore

/// `subrecon apple-reports import FILE...`
struct AppleReportsImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store Summary Sales Reports downloaded by hand from App Store Connect.",
        discussion: """
            Daily Summary Sales Reports (S_D_<vendor>_<yyyymmdd>, .txt/.tsv or .gz), read by column name. \
            The day is the file's Begin Date; it replaces an earlier copy of that day. Every file is checked \
            first: a bad one is reported as FILE:LINE: reason and nothing is stored (exit 65). With \
            SUBRECON_VENDOR_NUMBER set, a file named for another vendor is refused.

            Example:
              subrecon apple-reports import S_D_80012345_20261120.txt \\
                  S_D_80012345_20261121.txt.gz
            """)

    @OptionGroup var global: GlobalOptions

    @Argument(help: "Report files.")
    var files: [String]

    @Option(help: "The vendor number the reports belong to (SUBRECON_VENDOR_NUMBER); checked against file names.")
    var vendorNumber: String?

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one report file") }
    }

    func run() async throws {
        let imported = try await global.context().importAppleReports(files, vendorNumberFlag: vendorNumber)
        for file in imported {
            Console.out("\(file.day.text)  \(AppleReportLines.text(.stored(file.result, rows: file.rows)))  (\(file.path))\n")
        }
        Console.out("imported \(imported.count) day(s) of Apple's report\n")
    }
}
