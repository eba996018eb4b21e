import Foundation
import Logging
import SubReconHTTP

/// Wires the live parts together for `run` and `user`: the SQLite store, libcurl, verifyReceipt.
public struct ReconciliationJob: Sendable {
    public let settings: Settings
    public let database: AppDatabase
    let clock: @Sendable () -> Int64
    let stopSignal: StopSignal
    let logger: Logger

    public init(
        settings: Settings, database: AppDatabase, clock: @escaping @Sendable () -> Int64,
        stopSignal: StopSignal = StopSignal(), logger: Logger
    ) {
        self.settings = settings
        self.database = database
        self.clock = clock
        self.stopSignal = stopSignal
        self.logger = logger
    }

    public func run(_ options: ReconciliationRun.Options, observers: [any RunObserver] = [])
        async throws(RunFailure) -> RunSummary
    {
        let transport = CurlTransport(
            maxConnections: settings.concurrency, maxResponseBytes: settings.maxResponseBytes, caFile: settings.caFile)
        defer { transport.shutdown() }
        let client = VerifyReceiptClient(
            transport: transport, endpoints: settings.endpoints, sharedSecret: settings.sharedSecret,
            requestTimeout: settings.requestTimeout, retryPolicy: settings.retryPolicy, logger: logger)
        let pipeline = ReconciliationRun(
            store: database, verifier: client, reconciler: ReceiptReconciler(products: settings.products),
            clock: clock, stopSignal: stopSignal, logger: logger)
        var options = options
        options.concurrency = settings.concurrency
        return try await pipeline.run(options, observers: observers)
    }

    /// Wall-clock milliseconds since 1970.
    public static func wallClockMs() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
}
