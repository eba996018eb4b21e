import Foundation
import Testing

@testable import SubReconStore

/// Every command's `--help` through the built binary, as an 80-column terminal shows it: each has
/// an example, every example line is printed whole (a line wrapped in the middle of a command
/// breaks copy and paste), no option says its default twice, and the man page knows them all.
@Suite struct HelpTextBinaryTests {
    /// One command of the tree `--experimental-dump-help` describes.
    struct Command: CustomTestStringConvertible {
        var path: [String]
        var discussion: String
        /// Each shown option's names, help and ArgumentParser's default (which it prints itself).
        var options: [(names: [String], abstract: String, defaultValue: String?)]
        var testDescription: String { path.joined(separator: " ") }
    }

    static func commands() async throws -> [Command] {
        let dump = try await SubreconBinary.run(["--experimental-dump-help"])
        let dumped = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])
        let root = try #require(dumped["command"] as? [String: Any])
        var commands: [Command] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let options = (command["arguments"] as? [[String: Any]] ?? []).filter { $0["shouldDisplay"] as? Bool == true }
                .map { argument in
                    (
                        names: (argument["names"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String },
                        abstract: argument["abstract"] as? String ?? "", defaultValue: argument["defaultValue"] as? String
                    )
                }
            commands.append(Command(path: path, discussion: command["discussion"] as? String ?? "", options: options))
            for sub in command["subcommands"] as? [[String: Any]] ?? [] where sub["commandName"] as? String != "help" {
                walk(sub, path + [sub["commandName"] as? String ?? ""])
            }
        }
        walk(root, [])
        return commands
    }

    /// The lines of each `Example…:` block of a discussion, as written (up to a blank line).
    static func exampleLines(_ discussion: String) -> [String] {
        var lines: [String] = []
        var inside = false
        for line in discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("Example") && line.hasSuffix(":") { inside = true } else if line.isEmpty { inside = false } else if inside {
                lines.append(line)
            }
        }
        return lines
    }

    @Test func everyCommandShowsItsExamplesWhole() async throws {
        let commands = try await Self.commands()
        #expect(commands.count >= 20)
        for command in commands {
            let help = try await SubreconBinary.run(command.path + ["--help"], environment: ["COLUMNS": "80"])
            #expect(help.exitCode == 0, "\(command.testDescription)")
            let examples = Self.exampleLines(command.discussion)
            #expect(!examples.isEmpty, "subrecon \(command.testDescription) has no example")
            let shown = Set(help.stdout.split(separator: "\n").map(String.init))
            for (index, line) in examples.enumerated() {
                #expect(shown.contains(line), "subrecon \(command.testDescription): the example line is wrapped: \(line)")
                if line.hasSuffix("\\") {
                    #expect(index + 1 < examples.count, "subrecon \(command.testDescription): continues into nothing")
                }
                // A command, or the continuation of one: never prose a shell would run.
                let previous = index > 0 ? examples[index - 1] : ""
                let text = line.trimmingCharacters(in: .whitespaces)
                #expect(
                    previous.hasSuffix("\\") || text.contains("subrecon ") || text.hasPrefix("scripts/")
                        || text.hasPrefix("export ") || text.hasPrefix("SUBRECON_") || text.hasPrefix("#"),
                    "subrecon \(command.testDescription): \(line)")
                #expect(!text.contains("..."), "subrecon \(command.testDescription): \(line)")
            }
        }
    }

    @Test func noDefaultIsSaidTwice() async throws {
        for command in try await Self.commands() {
            for option in command.options where option.defaultValue != nil {
                // ArgumentParser appends "(default: …)" itself.
                #expect(
                    !option.abstract.lowercased().contains("default"),
                    "subrecon \(command.testDescription) --\(option.names.first ?? ""): \(option.abstract)")
            }
            // As shown: each option's help (its line and the indented lines under it) says it once.
            let help = try await SubreconBinary.run(command.path + ["--help"], environment: ["COLUMNS": "200"])
            let options = help.stdout.components(separatedBy: "\nOPTIONS:\n").dropFirst().joined()
            var blocks: [String] = []
            for line in options.split(separator: "\n") {
                if line.hasPrefix("  -") || blocks.isEmpty { blocks.append(String(line)) } else { blocks[blocks.count - 1] += " " + line }
            }
            for block in blocks {
                #expect(block.components(separatedBy: "default").count <= 2, "subrecon \(command.testDescription): \(block)")
            }
        }
    }

    /// `link` and `notifications backfill` ask only the App Store Server API: verifyReceipt's
    /// options are not listed (still accepted), while `run` lists them.
    @Test func serverAPICommandsListNoVerifyReceiptOptions() async throws {
        let verifyReceiptOnly = ["--shared-secret-file", "--production-url", "--sandbox-url", "--concurrency", "--ca-file"]
        for path in [["link"], ["notifications", "backfill"]] {
            let help = try await SubreconBinary.run(path + ["--help"])
            for option in verifyReceiptOnly { #expect(!help.stdout.contains(option), "\(path): \(option)") }
            #expect(help.stdout.contains("--api-key-file"))
        }
        let run = try await SubreconBinary.run(["run", "--help"])
        for option in verifyReceiptOnly { #expect(run.stdout.contains(option), "run: \(option)") }
    }

    @Test func dbMigrateExampleNamesTheCurrentSchemaVersion() async throws {
        let help = try await SubreconBinary.run(["db", "migrate", "--help"])
        #expect(help.stdout.contains("# schema version \(PostgresSchema.migrations.count)\n"), "\(help.stdout)")
    }

    @Test(arguments: [
        (["reprot"], "report", "subrecon"), (["db", "migrat"], "migrate", "subrecon db"),
        (["notifications", "serv"], "serve", "subrecon notifications"), (["apple-report"], "apple-reports", "subrecon"),
        (["help", "reprot"], "report", "subrecon"),
    ])
    func aMistypedSubcommandGetsADidYouMean(arguments: [String], suggestion: String, parent: String) async throws {
        let result = try await SubreconBinary.run(arguments + ["--db", "/nonexistent/x.sqlite"])
        #expect(result.exitCode == 2)
        #expect(result.stderr.contains("Error: Unknown subcommand '\(arguments.last ?? "")'. Did you mean '\(suggestion)'?"))
        #expect(result.stderr.contains("See '\(parent) --help'"))
        #expect(result.stdout.isEmpty)
    }

    /// The committed man page (docs/man/subrecon.1, which scripts/setup.sh installs) names every
    /// command and every option the binary shows: regenerate it with scripts/man-page.sh when not.
    @Test func theManPageKnowsEveryCommandAndOption() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let page = try String(contentsOf: root.appendingPathComponent("docs/man/subrecon.1"), encoding: .utf8)
            .replacingOccurrences(of: "\\-", with: "-")
        for command in try await Self.commands() {
            #expect(page.contains(command.path.last ?? "subrecon"), "\(command.testDescription)")
            for option in command.options {
                for name in option.names where name.count > 1 {
                    #expect(page.contains(name), "subrecon \(command.testDescription) --\(name): scripts/man-page.sh")
                }
            }
        }
        let setup = try String(contentsOf: root.appendingPathComponent("scripts/setup.sh"), encoding: .utf8)
        #expect(setup.contains("docs/man/subrecon.1") && setup.contains("share/man/man1"))
    }
}
