import Foundation
import Testing

/// The store seam holds: the application's targets read the store through typed reads
/// (`Sources/SubReconStore/Reads`), never by statement, binding or column name. The raw query
/// surface is `@_spi(RawSQL)` (the compiler refuses it to a file that does not opt in); this
/// pins that no application file opts in, nor names a statement or a binding.
@Suite struct NoSQLInTheApplicationTests {
    /// The targets that make up the application (everything but the store, the bench and the simulator).
    static let applicationTargets = ["SubRecon", "NotificationReceiver", "SubReconDemo", "subrecon"]

    /// What only code that runs SQL writes: opting into the raw surface, running a statement,
    /// naming one of the store's statement enums, binding an argument, reading a column by name.
    static let forbidden = [
        "@_spi(RawSQL)", "forEachRow(", "QueryRow", "SQLArgument", "SQL.", "requiredText(\"", "requiredInteger(\"",
        "row.text(\"", "row.integer(\"",
    ]

    static var sourcesDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources")
    }

    /// Every `.swift` file under the application's targets, with its text.
    static func applicationFiles() throws -> [(path: String, text: String)] {
        var files: [(String, String)] = []
        for target in applicationTargets {
            let root = sourcesDirectory.appendingPathComponent(target)
            guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where url.pathExtension == "swift" {
                files.append(("\(target)/\(url.path.dropFirst(root.path.count + 1))", try String(contentsOf: url, encoding: .utf8)))
            }
        }
        return files
    }

    @Test func theApplicationRunsNoSQL() throws {
        let files = try Self.applicationFiles()
        #expect(files.count > 100, "the application's sources were not found under \(Self.sourcesDirectory.path)")
        var found: [String] = []
        for (path, text) in files {
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("//") { continue }  // a comment may name a statement
                for pattern in Self.forbidden where code.contains(pattern) {
                    found.append("\(path):\(number + 1): \(pattern)")
                }
            }
        }
        #expect(found.isEmpty, "the application reaches past the store's typed reads:\n\(found.joined(separator: "\n"))")
    }

    /// The check itself finds what it looks for (a line as the application wrote it before).
    @Test func theCheckSeesARawRead() {
        let line = #"try await db.forEachRow(StatusSQL.subscriptionsByStatus, []) { row in try row.requiredText("status") }"#
        #expect(Self.forbidden.filter { line.contains($0) } == ["forEachRow(", "SQL.", "requiredText(\""])
    }
}
