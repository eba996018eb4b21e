import AppleSignedData
import Foundation
import Logging
import SubReconModel

/// swift-log handler writing one JSON object per line to stderr (`--log-format json`), for log
/// shippers: `{"ts":"…","level":"notice","label":"subrecon","message":"…","run.id":"42",…}`.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let write: @Sendable (String) -> Void

    public init(
        label: String, logLevel: Logger.Level,
        write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }
    ) {
        self.label = label
        self.logLevel = logLevel
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [(String, String)] = [
            ("ts", ISO8601.string(fromMilliseconds: WallClock.unixMilliseconds())),
            ("level", event.level.rawValue), ("label", label), ("message", event.message.description),
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for key in merged.keys.sorted() where !["ts", "level", "label", "message"].contains(key) {
            fields.append((key, "\(merged[key]!)"))
        }
        write("{" + fields.map { "\(JSONText.quoted($0)):\(JSONText.quoted($1))" }.joined(separator: ",") + "}\n")
    }
}
