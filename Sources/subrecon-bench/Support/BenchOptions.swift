import ArgumentParser
import Foundation

/// Options shared by the commands that start `subrecon` processes.
struct BenchOptions: ParsableArguments {
    @Option(help: "The subrecon executable (default: the one next to subrecon-bench).")
    var subrecon: String?

    @Option(help: "Receipt filler bytes (3000: ~4.4 KB receipts and ~7 KB answers, like Apple's).")
    var paddingBytes: Int = 3_000

    @Flag(help: "Keep the temporary folder (databases, logs) instead of deleting it.")
    var keep = false

    var subreconPath: String { subrecon ?? ChildProcess.ownDirectory() + "/subrecon" }

    func validate() throws {
        if paddingBytes < 0 { throw ValidationError("--padding-bytes must be 0 or more") }
        guard FileManager.default.isExecutableFile(atPath: subreconPath) else {
            throw ValidationError("\(subreconPath) is not an executable; build it (swift build --product subrecon) or pass --subrecon")
        }
    }
}
