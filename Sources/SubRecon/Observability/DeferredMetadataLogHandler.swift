import Logging

/// Keeps a logger's metadata and hands it to `Inner` only with a line to write. swift-log's
/// StreamLogHandler formats its metadata each time a key is set; Hummingbird sets a request id on
/// every request's logger, so the receiver formatted one per request for lines that, at the
/// default level, were never written (docs/performance.md, "Notifications receiver"). The lines
/// are the same: `Inner` gets the logger's metadata merged with the call's (the call's win), as
/// it would have merged them itself.
public struct DeferredMetadataLogHandler<Inner: LogHandler>: LogHandler {
    private var inner: Inner
    public var metadata: Logger.Metadata = [:]

    /// `inner` should hold no metadata of its own.
    public init(_ inner: Inner) {
        self.inner = inner
    }

    public var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    public var metadataProvider: Logger.MetadataProvider? {
        get { inner.metadataProvider }
        set { inner.metadataProvider = newValue }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var event = event
        if !metadata.isEmpty {
            event.metadata = event.metadata.map { metadata.merging($0) { _, call in call } } ?? metadata
        }
        inner.log(event: event)
    }
}
