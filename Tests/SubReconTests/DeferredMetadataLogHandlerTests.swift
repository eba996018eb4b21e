import Logging
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Synchronization
import Testing

/// The text log's wrapper: metadata set on a logger reaches the written line, merged with the
/// call's (the call's win), and nothing reaches the handler for a line below the level.
@Suite("Deferred metadata log handler")
struct DeferredMetadataLogHandlerTests {
    /// Records what it is asked to write.
    struct Recording: LogHandler {
        let box: Box
        var logLevel: Logger.Level = .info
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            box.lines.withLock { $0.append((event.level, event.message.description, event.metadata)) }
        }
    }

    final class Box: Sendable {
        let lines = Mutex<[(Logger.Level, String, Logger.Metadata?)]>([])
    }

    @Test func theLoggersMetadataIsMergedIntoEachWrittenLineAndTheCallsWins() {
        let box = Box()
        var logger = Logger(label: "t") { _ in DeferredMetadataLogHandler(Recording(box: box)) }
        logger[metadataKey: "request.id"] = "r1"
        logger[metadataKey: "run.id"] = "7"
        logger.info("with call metadata", metadata: ["run.id": "8", "uuid": "u"])
        logger.info("without")
        logger.debug("below the level")
        logger.logLevel = .debug
        logger.debug("now written")

        let lines = box.lines.withLock { $0 }
        #expect(lines.map(\.1) == ["with call metadata", "without", "now written"])
        #expect(lines[0].2 == ["request.id": "r1", "run.id": "8", "uuid": "u"])
        #expect(lines[1].2 == ["request.id": "r1", "run.id": "7"])
        #expect(lines[2].0 == .debug)
    }

    @Test func aCopyOfTheLoggerKeepsItsOwnMetadata() {
        let box = Box()
        var first = Logger(label: "t") { _ in DeferredMetadataLogHandler(Recording(box: box)) }
        first[metadataKey: "a"] = "1"
        var second = first
        second[metadataKey: "a"] = "2"
        first.info("first")
        second.info("second")
        let lines = box.lines.withLock { $0 }
        #expect(lines.map { $0.2?["a"] } == ["1", "2"])
    }
}
