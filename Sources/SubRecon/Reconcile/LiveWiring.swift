import AppleSignedData
import Foundation
import Logging
import SubReconAppStore
import SubReconHTTP
import SubReconModel
import SubReconStore

/// The composition root of the commands that talk to Apple (`run`, `user`, `parity`, `notifications
/// backfill`): wires the live parts together, the store, libcurl, the rate limiter and the chosen Apple API.
public struct LiveWiring: Sendable {
    public let settings: Settings
    public let store: any SubscriptionStore
    let clock: @Sendable () -> Int64
    let stopSignal: StopSignal
    let logger: Logger
    /// Sees every reservation of App Store Server API request slots shared with other workers
    /// (PostgreSQL), as the database made it.
    public var onAPISlotsReserved: (@Sendable (SlotReservation) -> Void)?

    public init(
        settings: Settings, store: any SubscriptionStore, clock: @escaping @Sendable () -> Int64,
        stopSignal: StopSignal = StopSignal(), logger: Logger
    ) {
        self.settings = settings
        self.store = store
        self.clock = clock
        self.stopSignal = stopSignal
        self.logger = logger
    }

    /// A `user` run for `userID` limited to `app` (every app when it names none): what follows a
    /// purchase newly tied to a user (`link`, a token found in a run's answers).
    func reconcile(user userID: String, app: AppSettings?, eventSource: EventSource) async throws -> RunSummary {
        var settings = settings
        settings.appFilter = app?.bundleID.map { [$0] } ?? []
        let wiring = LiveWiring(settings: settings, store: store, clock: clock, stopSignal: stopSignal, logger: logger)
        return try await wiring.run(ReconciliationRun.Options(kind: .user, selection: .user(userID), eventSource: eventSource))
    }

    public func run(_ options: ReconciliationRun.Options, observers: [any RunObserver] = [])
        async throws(RunFailure) -> RunSummary
    {
        let transport = CurlTransport(
            maxConnections: settings.concurrency, maxResponseBytes: settings.maxResponseBytes, caFile: settings.caFile)
        defer { transport.shutdown() }
        let duePolicy = await Self.duePolicy(store: store, nowMs: clock(), logger: logger)
        let apps = settings.selectedApps
        if settings.apps.count > 1 {
            let unnamed = (try? await store.countReceiptsWithoutApp()) ?? 0
            if unnamed > 0 {
                logger.warning(
                    "\(unnamed) receipt(s) name no app and are not verified: with several apps each receipt names its app; import them again with bundle_id")
            }
        }
        // Each app its own client, with its own credentials and rate budget.
        var limiters: [APIRateLimiter] = []
        var lanes: [ReconciliationRun.Lane] = []
        for app in apps {
            let limiter = rateLimiter(for: app)
            if app.appleAPI == .serverAPI { limiters.append(limiter) }
            lanes.append(
                ReconciliationRun.Lane(
                    app: settings.apps.count > 1 ? .app(app.bundleID ?? "") : .every,
                    verifier: try verifier(transport: transport, app: app, api: app.appleAPI, limiter: limiter),
                    reconciler: ReceiptReconciler(products: app.products, duePolicy: duePolicy)))
        }
        let pipeline = ReconciliationRun(store: store, lanes: lanes, clock: clock, stopSignal: stopSignal, logger: logger)
        var options = options
        options.concurrency = settings.concurrency
        options = options.coordinated(by: RunCoordination(of: store))
        var summary = try await pipeline.run(options, observers: observers)
        if !limiters.isEmpty { summary.serverAPI = APIRateLimiter.Figures.together(limiters.map(\.figures)) }
        return summary
    }

    /// `subrecon parity`: both APIs on the same due receipts (every stored receipt with `all`),
    /// nothing written.
    public func parity(limit: Int?, all: Bool = false) async throws(RunFailure) -> APIParityCheck.Result {
        let transport = CurlTransport(
            maxConnections: settings.concurrency, maxResponseBytes: settings.maxResponseBytes, caFile: settings.caFile)
        defer { transport.shutdown() }
        // Each app with its own credentials for both APIs, its products and its receipts.
        var total = APIParityCheck.Result(
            receiptsCompared: 0, subscriptionsCompared: 0, subscriptionsDiffering: 0, differences: [], comparedAll: all)
        for app in settings.selectedApps {
            let remaining = limit.map { $0 - total.receiptsCompared }
            if let remaining, remaining <= 0 { break }
            let limiter = rateLimiter(for: app)
            let check = APIParityCheck(
                store: store, verifyReceipt: try verifier(transport: transport, app: app, api: .verifyReceipt, limiter: limiter),
                serverAPI: try verifier(transport: transport, app: app, api: .serverAPI, limiter: limiter),
                reconciler: ReceiptReconciler(products: app.products), clock: clock, concurrency: settings.concurrency,
                logger: logger, app: settings.apps.count > 1 ? .app(app.bundleID ?? "") : .every)
            let result: APIParityCheck.Result
            do {
                result = try await check.run(limit: remaining, all: all)
            } catch {
                throw .store(error)
            }
            total.receiptsCompared += result.receiptsCompared
            total.subscriptionsCompared += result.subscriptionsCompared
            total.subscriptionsDiffering += result.subscriptionsDiffering
            total.differences += result.differences
            if let stored = result.receiptsStored { total.receiptsStored = (total.receiptsStored ?? 0) + stored }
        }
        return total
    }

    /// What every App Store Server API request of an app waits for: its `api_rate`
    /// (`SUBRECON_API_RATE`) for all workers together, through a schedule they share in the store
    /// (PostgreSQL); on SQLite, which answers nil, this process's own. Apple's limit is per app,
    /// so each app has its own.
    func rateLimiter(for app: AppSettings) -> APIRateLimiter {
        guard let serverAPI = app.serverAPI, serverAPI.requestsPerSecond > 0 else {
            return APIRateLimiter(requestsPerSecond: app.serverAPI?.requestsPerSecond ?? 0)
        }
        return APIRateLimiter(
            requestsPerSecond: serverAPI.requestsPerSecond,
            schedule: .store(store, budget: Self.apiRateBudget(bundleID: serverAPI.bundleID), observer: onAPISlotsReserved),
            logger: logger)
    }

    /// The `api_rate` row of an app: Apple's limit is per app.
    static func apiRateBudget(bundleID: String) -> String { "server-api " + bundleID }

    /// The client asking `api` about `app`'s receipts, or a configuration failure when its
    /// settings are missing.
    func verifier(transport: any HTTPTransport, app: AppSettings, api: AppleAPI, limiter: APIRateLimiter)
        throws(RunFailure) -> any ReceiptVerifier
    {
        switch api {
        case .verifyReceipt:
            guard let secret = app.sharedSecret else { throw .configuration(ConfigurationError.missingSharedSecret.description) }
            return VerifyReceiptClient(
                transport: transport, endpoints: settings.endpoints, sharedSecret: secret,
                requestTimeout: settings.requestTimeout, retryPolicy: settings.retryPolicy, logger: logger)
        case .serverAPI:
            guard let serverAPI = app.serverAPI else {
                throw .configuration("the App Store Server API is not configured (SUBRECON_API_KEY_FILE, ...)")
            }
            return ServerAPIClient(
                connection: serverAPI.connection(transport: transport, limiter: limiter, settings: settings),
                verifier: serverAPI.verifier, bundleID: serverAPI.bundleID, appAppleID: serverAPI.appAppleID,
                products: app.products, logger: logger)
        }
    }

    /// Wall-clock milliseconds since 1970.
}

extension LiveWiring {
    /// `notifications backfill`: `app`'s notification history for the span (Apple keeps one per
    /// app), through `processor`, with this job's transport, the app's bearer token and its rate
    /// limit (shared with running workers).
    public func backfillNotifications(
        app: AppSettings? = nil, processor: NotificationProcessor, sinceMs: Int64, untilMs: Int64,
        environment: ReceiptEnvironment
    ) async throws(NotificationBackfill.Failure) -> NotificationBackfill.Summary {
        let app = app ?? settings.apps[0]
        guard let serverAPI = app.serverAPI else {
            throw .configuration("the App Store Server API is not configured (SUBRECON_API_KEY_FILE, ...)")
        }
        let transport = CurlTransport(maxConnections: 2, maxResponseBytes: settings.maxResponseBytes, caFile: settings.caFile)
        defer { transport.shutdown() }
        let history = NotificationHistoryClient(
            connection: serverAPI.connection(transport: transport, limiter: rateLimiter(for: app), settings: settings),
            logger: logger)
        let backfill = NotificationBackfill(
            history: history, processor: processor, clockMs: { WallClock.unixMilliseconds() }, logger: logger)
        return try await backfill.run(sinceMs: sinceMs, untilMs: untilMs, environment: environment)
    }
}

extension LiveWiring {
    /// `DuePolicy.notified` while notifications flow (one received or backfilled within
    /// `DuePolicy.notificationsFlowingWithinMs`), else the standard policy. A receiver that went
    /// quiet brings the 7-day re-checks back by itself.
    public static func duePolicy(store: any SubscriptionStore, nowMs: Int64, logger: Logger) async -> DuePolicy {
        let recent = try? await store.withReadSnapshot { db in
            try await db.deliveredNotificationCount(since: nowMs - DuePolicy.notificationsFlowingWithinMs)
        }
        guard let count = recent, count > 0 else { return .standard }
        logger.info("notifications flow: entitled subscriptions are re-checked at most 30 days apart")
        return .notified
    }
}
