import Logging
import Synchronization
import Testing

@testable import SubRecon

/// `--log-format json` lines quote through the package's one JSON string quoting (`JSONText`).
@Suite struct JSONLogHandlerTests {
    @Test func messagesAndMetadataAreEscapedAsJSONStrings() throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "subrecon") { label in
            JSONLogHandler(label: label, logLevel: .info, write: { line in lines.withLock { $0.append(line) } })
        }
        logger.notice("a \"quote\" \\ back\nline\u{1B}esc\ttab é", metadata: ["user.id": "u\"1"])
        let line = try #require(lines.withLock { $0.first })
        #expect(line.hasSuffix("\n"))
        #expect(line.contains(#""message":"a \"quote\" \\ back\nline\u001besc\ttab é""#), "\(line)")
        #expect(line.contains(#""user.id":"u\"1""#), "\(line)")
        #expect(line.contains(#""level":"notice","label":"subrecon""#), "\(line)")
    }
}
