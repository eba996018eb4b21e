import ArgumentParser
import Foundation
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `subrecon notifications import FILE|-`
struct NotificationsImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Verify and apply App Store Server Notifications forwarded as JSON Lines.",
        discussion: """
            One {"signedPayload": "..."} body per line, as Apple POSTs them (an app server that \
            already receives notifications may forward them). Every line is verified first: any \
            bad line is reported as FILE:LINE: reason and nothing from the file is applied (exit \
            65). Then each notification is stored and applied like one the receiver took; one \
            stored before only counts another delivery. Exit 66: the file cannot be read; 74: \
            the database failed (what was stored stands; importing again is harmless).

            Example:
              subrecon notifications import forwarded.jsonl
            """)

    @OptionGroup var global: GlobalOptions
    @OptionGroup var notification: NotificationOptions

    @Argument(help: "The JSON Lines file, or - for standard input.")
    var file: String

    func run() async throws {
        let logger = global.makeLogger()
        let settings = try notification.settings(global)
        let bytes: Data
        if file == "-" {
            bytes = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                let reason = FileManager.default.fileExists(atPath: file) ? "permission denied" : "no such file"
                Console.error("cannot read \(file): \(reason)")
                throw ExitCode(.unreadableInput)
            }
            bytes = data
        }
        let name = file == "-" ? "<stdin>" : file
        let lines = NotificationLines.split(Array(bytes))
        let store = try await global.openStore(logger: logger)
        let processor = NotificationProcessor.live(store: store, settings: settings, logger: logger)
        // First every line is checked, so a file with a bad line changes nothing.
        var problems: [String] = []
        for line in lines {
            if line.bytes.count > NotificationLines.maximumBodyBytes {
                problems.append("\(name):\(line.number): the line is longer than 1 MiB")
            } else if let problem = await processor.check(body: line.bytes) {
                problems.append("\(name):\(line.number): \(problem.message)")
            }
        }
        if !problems.isEmpty {
            for problem in problems.prefix(100) { Console.error(problem) }
            if problems.count > 100 { Console.error("... and \(problems.count - 100) more") }
            Console.error("nothing was imported: fix or remove the lines above")
            await store.close()
            throw ExitCode(.badInput)
        }
        var counts: [NotificationOutcome: Int] = [:]
        var duplicates = 0
        for line in lines {
            switch await processor.receive(body: line.bytes, source: .import) {
            case .stored(_, let outcome, let duplicate, _):
                if duplicate { duplicates += 1 } else { counts[outcome, default: 0] += 1 }
            case .refused(_, let message):
                // Verified a moment ago; a refusal now means the file changed underneath.
                Console.error("\(name):\(line.number): \(message)")
            case .unavailable(let message):
                Console.error(message)
                await store.close()
                throw ExitCode(.databaseFailed)
            }
        }
        await store.close()
        Console.out(NotificationLines.summary(counts, duplicates: duplicates) + "\n")
    }
}

/// Non-empty lines of a JSON Lines file, numbered from 1, and how a batch of them is reported.
enum NotificationLines {
    /// The receiver's limit, for the same bodies.
    static let maximumBodyBytes = 1 << 20

    static func split(_ bytes: [UInt8]) -> [(number: Int, bytes: [UInt8])] {
        var lines: [(Int, [UInt8])] = []
        for (index, raw) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            var line = raw[...]
            while let last = line.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") { line = line.dropLast() }
            if !line.isEmpty { lines.append((index + 1, Array(line))) }
        }
        return lines
    }

    static func summary(_ counts: [NotificationOutcome: Int], duplicates: Int) -> String {
        let stored = counts.values.reduce(0, +)
        let parts = NotificationOutcome.allCases.map { "\(counts[$0] ?? 0) \($0.rawValue)" }.joined(separator: ", ")
        return "stored \(stored) notification(s): \(parts); \(duplicates) already stored"
    }
}
