import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A local HTTP server that answers like Apple's legacy verifyReceipt service and the App Store
/// Server API, for the demo, the integration tests and the benchmarks. verifyReceipt: production
/// at `/verifyReceipt`, the sandbox at `/sandbox/verifyReceipt`. Server API (Get All Subscription
/// Statuses, Get Transaction History v2, Get Transaction Info, Look Up Order ID, Request a Test
/// Notification, Get Test Notification Status, Set App Account Token; see `ServerAPIEndpoint`): production under
/// `/inApps/...`, the sandbox under
/// `/sandbox/inApps/...`, signed with a certificate chain made at creation. Keep-alive
/// connections are supported, latency is applied per request without blocking others, and
/// faults can be injected while it runs.
///
/// It also makes App Store Server Notifications V2 for its accounts (`notifications(for:…)`
/// from a scenario's timeline, `makeNotification` on request), keeps every one it made in a
/// log, and serves that log as Get Notification History (`POST /inApps/v1/notifications/history`,
/// the sandbox under `/sandbox`). It POSTs them to `options.notificationURL` when asked
/// (`deliver`, and the `TEST` notification of Request a Test Notification); other delivery is
/// the caller's: it has the bodies.
///
/// It serves App Store Connect's Sales and Trends download too (`GET /v1/salesReports`): the
/// daily Summary Sales Report of its registered accounts, gzipped (see `SalesReportResponder`).
///
/// verifyReceipt is stateless with respect to receipts: each receipt carries its own account
/// (see `SimulatedReceipt`). The Server API is asked by transaction id, so it answers only for
/// accounts it was told about (`register`, `POST /simulator/accounts`, or a verifyReceipt call).
///
/// It serves several apps at once (`SimulatorOptions.apps`): each account belongs to one
/// (`SimulatedSubscriber.bundleID`), whose bundle id, Apple id and shared secret its receipts
/// and signed data answer with; a Server API request is for the app its bearer token names,
/// finds only that app's accounts and counts against that app's rate limit.
public final class AppStoreSimulator: Sendable {
    /// Errors from `start`.
    public enum StartError: Error, Equatable {
        case alreadyStarted
        case didNotStartListening
        /// The address cannot be bound: the socket call's errno (EADDRINUSE: the port is taken).
        case cannotListen(errno: Int32, detail: String)
    }

    private struct Running: Sendable {
        let channel: any Channel
        let group: MultiThreadedEventLoopGroup
        let host: String
        let port: UInt16
    }

    private enum Lifecycle: Sendable {
        case idle
        case starting
        case running(Running)
    }

    /// The configuration it was created with.
    public let options: SimulatorOptions
    private let faults = FaultInjector()
    private let recorder = StatisticsRecorder()
    private let lifecycle = Mutex<Lifecycle>(.idle)
    private let accounts = SimulatedAccountRegistry()
    private let apps: SimulatedAppCatalog
    private let authority: LazySigningAuthority
    private let notificationLog = SimulatedNotificationLog()
    private let notificationEmitter: NotificationEmitter
    /// Nil without `options.notificationURL`.
    private let notificationDelivery: NotificationDelivery?
    private let salesReportFaults: SalesReportFaultQueue

    public init(options: SimulatorOptions = SimulatorOptions()) {
        self.options = options
        apps = SimulatedAppCatalog(options.servedApps)
        authority = LazySigningAuthority(clock: options.clock)
        salesReportFaults = SalesReportFaultQueue(options.salesReports.faults)
        notificationEmitter = NotificationEmitter(authority: authority, apps: apps, log: notificationLog, registry: accounts)
        if let url = options.notificationURL {
            notificationDelivery = NotificationDelivery(
                url: url, timeout: options.notificationTimeout, log: notificationLog, clock: options.clock,
                observer: options.notificationAttemptObserver)
        } else {
            notificationDelivery = nil
        }
    }

    /// The certificate chains the Server API signs with: made once, at the first Server API
    /// request or the first read of this (or `rootCertificatePEM`), with validity windows around
    /// the clock's "now" then; the same for the simulator's whole life.
    public var signingAuthority: SimulatedSigningAuthority { authority.value }

    /// PEM of the root certificate every Server API signature chains to: what the worker needs
    /// as `SUBRECON_APPLE_ROOT_CA_FILE` (`subrecon simulator --write-root-ca FILE`). Available
    /// before `start`.
    public var rootCertificatePEM: String { signingAuthority.rootCertificatePEM }

    /// Makes `subscriber` known to the App Store Server API endpoints: any of its transaction ids
    /// (original, renewals — also those that appear later as the clock moves — or its consumable)
    /// then finds it. Replaces an account with the same id. Thread-safe; works before and after
    /// `start`. A simulator in another process registers accounts through `POST
    /// /simulator/accounts` (receipt data, one per line), or by verifying the receipt once.
    public func register(_ subscriber: SimulatedSubscriber) {
        accounts.register(subscriber)
    }

    /// `register` for each of `subscribers`.
    public func register(_ subscribers: some Sequence<SimulatedSubscriber>) {
        for subscriber in subscribers { accounts.register(subscriber) }
    }

    /// Number of accounts the Server API knows.
    public var registeredAccountCount: Int { accounts.count }

    /// Forgets every registered account, and every app account token set for them.
    public func removeAllAccounts() {
        accounts.removeAll()
    }

    /// Every successful Set App Account Token since start (or `removeAllAccounts`), oldest first.
    public func appAccountTokenSets() -> [AppAccountTokenSet] {
        accounts.appAccountTokenSets()
    }

    /// Starts listening on `host`:`port` (0 picks a free port) and returns the real port once the
    /// server accepts connections.
    @discardableResult
    public func start(host: String = "127.0.0.1", port requestedPort: UInt16 = 0) async throws -> UInt16 {
        try lifecycle.withLock { state in
            guard case .idle = state else { throw StartError.alreadyStarted }
            state = .starting
        }
        do {
            let running = try await launch(host: host, port: requestedPort)
            lifecycle.withLock { $0 = .running(running) }
            return running.port
        } catch {
            lifecycle.withLock { $0 = .idle }
            throw error
        }
    }

    /// Requests with a larger body are refused (413, or a close once the body is under way) rather
    /// than buffered: real ones carry a few KB of receipt, more with large paddings.
    static let maxRequestBodyBytes = 256 * 1024

    private func launch(host: String, port requestedPort: UInt16) async throws -> Running {
        let router = SimulatorRequestRouter(
            responder: VerifyReceiptResponder(apps: apps.apps),
            serverAPI: ServerAPIResponder(
                authority: authority, registry: accounts, apps: apps, historyPageSize: max(1, options.historyPageSize),
                notificationHistory: NotificationHistoryResponder(
                    log: notificationLog, pageSize: max(1, options.notificationHistoryPageSize)),
                testNotifications: TestNotificationResponder(emitter: notificationEmitter, delivery: notificationDelivery)),
            access: ServerAPIAppAccess(apps: apps),
            registersVerifiedReceipts: options.registersVerifiedReceipts,
            clock: options.clock,
            latency: options.latency,
            requestTimeout: options.requestTimeout,
            faults: faults,
            statistics: recorder,
            salesReports: SalesReportResponder(
                options: options.salesReports, registry: accounts, faults: salesReportFaults, statistics: recorder))
        let group = MultiThreadedEventLoopGroup(numberOfThreads: max(1, options.eventLoopThreads))
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 1024)
            // Lets `subrecon simulator --port N` restart at once while old connections sit in TIME_WAIT.
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            // Essential, not a default to trust: with Nagle a keep-alive answer's body waits for the
            // client's delayed ACK of its headers (docs/performance.md, "Earlier figures behind the
            // code's choices").
            .childChannelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let pipeline = channel.pipeline.syncOperations
                    // No outbound header validation: the simulator writes only its own fixed, well-formed
                    // headers, and the check showed up in profiles of every response.
                    try pipeline.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: true, withOutboundHeaderValidation: false)
                    try pipeline.addHandler(NIOHTTPServerRequestAggregator(maxContentLength: Self.maxRequestBodyBytes))
                    try pipeline.addHandler(SimulatorChannelHandler(router: router))
                }
            }
        do {
            let channel = try await bootstrap.bind(host: host, port: Int(requestedPort)).get()
            guard let actualPort = channel.localAddress?.port else {
                try? await channel.close()
                throw StartError.didNotStartListening
            }
            return Running(channel: channel, group: group, host: host, port: UInt16(actualPort))
        } catch let error as IOError {
            try? await group.shutdownGracefully()
            throw StartError.cannotListen(errno: error.errnoCode, detail: "\(error)")
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
    }

    /// Stops accepting, drops open connections (with any answers still pending) and waits until
    /// the event loop threads have ended.
    public func stop() async {
        guard let current = lifecycle.withLock({ state -> Running? in
            guard case .running(let running) = state else { return nil }
            state = .idle
            return running
        }) else { return }
        try? await current.channel.close()
        try? await current.group.shutdownGracefully()
    }

    /// The port it listens on (0 when not started).
    public var listeningPort: UInt16 {
        lifecycle.withLock { state in
            if case .running(let running) = state { return running.port }
            return 0
        }
    }

    /// `http://127.0.0.1:PORT` (or the host it was started on).
    public var baseURL: String {
        let (host, port) = lifecycle.withLock { state -> (String, UInt16) in
            if case .running(let running) = state { return (running.host, running.port) }
            return ("127.0.0.1", 0)
        }
        let urlHost = host == "0.0.0.0" ? "127.0.0.1" : host
        return "http://\(urlHost):\(port)"
    }

    /// The production endpoint, `http://127.0.0.1:PORT/verifyReceipt`.
    public var productionURL: String { baseURL + SimulatorEndpoint.production.path }

    /// The sandbox endpoint, `http://127.0.0.1:PORT/sandbox/verifyReceipt`.
    public var sandboxURL: String { baseURL + SimulatorEndpoint.sandbox.path }

    /// Base URL of the production App Store Server API (`SUBRECON_API_URL`): `http://127.0.0.1:PORT`,
    /// so Get All Subscription Statuses is `{base}/inApps/v1/subscriptions/{transactionId}`.
    public var serverAPIProductionBaseURL: String { baseURL }

    /// Base URL of the sandbox App Store Server API (`SUBRECON_API_SANDBOX_URL`): `http://127.0.0.1:PORT/sandbox`.
    public var serverAPISandboxBaseURL: String { baseURL + ServerAPIRoute.sandboxPrefix }

    /// Base URL of the App Store Connect API (`SUBRECON_ASC_URL`): `http://127.0.0.1:PORT`, so the
    /// Sales and Trends download is `{base}/v1/salesReports?filter[...]`.
    public var appStoreConnectBaseURL: String { baseURL }

    /// `http://127.0.0.1:PORT/v1/salesReports` (add the `filter[...]` query).
    public var salesReportsURL: String { baseURL + SalesReportResponder.path }

    /// Queues `faults` for `GET /v1/salesReports` after any still waiting (from
    /// `SalesReportOptions.faults` or an earlier call): each is answered once, in order.
    public func queueSalesReportFaults(_ faults: [SalesReportFault]) {
        salesReportFaults.append(faults)
    }

    /// The admin endpoint `http://127.0.0.1:PORT/simulator/accounts` (POST receipt data, one per line).
    public var accountsURL: String { baseURL + SimulatorRequestRouter.accountsPath }

    /// Get Notification History, `POST http://127.0.0.1:PORT[/sandbox]/inApps/v1/notifications/history`.
    public func notificationHistoryURL(_ environment: SimulatedEnvironment = .production) -> String {
        baseURL + ServerAPIEndpoint.notificationHistory.pathPrefix(in: environment)
    }

    // MARK: Notifications V2

    /// The App Store Server Notifications V2 that `subscriber`'s subscriptions produced with a
    /// time in (`fromMs`, `toMs`] (`SUBSCRIBED`/`INITIAL_BUY` at the first purchase, `DID_RENEW`
    /// per renewal, billing failures, grace and retry ends, recoveries, expiries, refunds,
    /// upgrades, downgrades, auto-renew turned off, `REVOKE` for a family member), ordered by
    /// `signedDate`: each signed as of its event's time, with the transaction and renewal JWSs
    /// the status endpoint gives for that subscription then. A notification's UUID is a function
    /// of its event, so asking for the same span again gives the same UUIDs (a redelivery).
    ///
    /// Each is recorded in the notification log that Get Notification History serves, with one
    /// send attempt of `sendAttempt` at its `signedDate` (nil: none yet). Works without `start`.
    /// Accounts with a `fixedStatus` (Apple knows no such purchase) produce none.
    public func notifications(
        for subscriber: SimulatedSubscriber, afterMs fromMs: Int64, throughMs toMs: Int64,
        signing: NotificationSigning = .apple, sendAttempt: NotificationSendAttemptResult? = .success
    ) -> [SimulatedNotification] {
        notificationEmitter.notifications(
            for: subscriber, afterMs: fromMs, throughMs: toMs, signing: signing, sendAttempt: sendAttempt)
    }

    /// `notifications(for:afterMs:throughMs:)` for each of `subscribers`, all ordered by
    /// `signedDate` (then in `subscribers` order).
    public func notifications(
        for subscribers: some Sequence<SimulatedSubscriber>, afterMs fromMs: Int64, throughMs toMs: Int64,
        signing: NotificationSigning = .apple, sendAttempt: NotificationSendAttemptResult? = .success
    ) -> [SimulatedNotification] {
        let all = subscribers.flatMap {
            notifications(for: $0, afterMs: fromMs, throughMs: toMs, signing: signing, sendAttempt: sendAttempt)
        }
        return all.enumerated()
            .sorted { ($0.element.signedDateMs, $0.offset) < ($1.element.signedDateMs, $1.offset) }
            .map(\.element)
    }

    /// One notification of `type`/`subtype` about subscription `slot` of `subscriber`, whatever
    /// its scenario says, with that subscription's data as of `atMs` (default: the clock's now),
    /// e.g. to forge one with `signing` (a broken chain, another app's bundle id). A `TEST`, or a
    /// slot not bought at `atMs`, carries `data` without transaction, renewal or status. A fresh
    /// random UUID unless `notificationUUID` is given (the same one again is a redelivery).
    /// Recorded in the notification log like the scenario's.
    @discardableResult
    public func makeNotification(
        _ type: SimulatedNotificationType, subtype: SimulatedNotificationSubtype? = nil,
        for subscriber: SimulatedSubscriber, slot: Int = 0, atMs: Int64? = nil,
        signing: NotificationSigning = .apple, notificationUUID: String? = nil,
        sendAttempt: NotificationSendAttemptResult? = .success
    ) -> SimulatedNotification {
        notificationEmitter.emit(
            type, subtype: subtype, for: subscriber, slot: slot, atMs: atMs ?? options.clock(), signing: signing,
            notificationUUID: notificationUUID ?? NotificationEmitter.randomUUID(), sendAttempt: sendAttempt)
    }

    /// A `TEST` notification for the app `bundleID` (nil: the first app) in `environment` (what
    /// Request a Test Notification makes Apple send): `data` has only `appAppleId` (production),
    /// `bundleId` and `environment`.
    @discardableResult
    public func makeTestNotification(
        environment: SimulatedEnvironment = .production, atMs: Int64? = nil, signing: NotificationSigning = .apple,
        notificationUUID: String? = nil, sendAttempt: NotificationSendAttemptResult? = .success, bundleID: String? = nil
    ) -> SimulatedNotification {
        notificationEmitter.emitTest(
            for: apps.app(named: bundleID), environment: environment, atMs: atMs ?? options.clock(), signing: signing,
            notificationUUID: notificationUUID ?? NotificationEmitter.randomUUID(), sendAttempt: sendAttempt)
    }

    /// POSTs `notification` to `options.notificationURL` once, as Apple does, and records the
    /// attempt's result (Apple's `sendAttemptResult`) in the notification history; nil, and
    /// nothing sent, without a notification URL.
    @discardableResult
    public func deliver(_ notification: SimulatedNotification) async -> NotificationSendAttemptResult? {
        await notificationDelivery?.deliver(notification)
    }

    /// Adds a delivery attempt to a logged notification (at most six are kept, as Apple makes);
    /// false when no notification with that UUID was emitted.
    @discardableResult
    public func recordSendAttempt(
        _ result: NotificationSendAttemptResult, notificationUUID: String, atMs: Int64
    ) -> Bool {
        notificationLog.addAttempt(NotificationSendAttempt(attemptDateMs: atMs, result: result), notificationUUID: notificationUUID)
    }

    /// Everything emitted so far, one entry per `notificationUUID`, ordered by `signedDate`.
    public var notificationHistory: [NotificationHistoryEntry] {
        notificationLog.entries()
    }

    /// Empties the notification log.
    public func removeAllNotifications() {
        notificationLog.removeAll()
    }

    /// Counters since start (or the last `resetStatistics`).
    public func statistics() -> SimulatorStatistics {
        recorder.snapshot()
    }

    /// Sets all counters to zero.
    public func resetStatistics() {
        recorder.reset()
    }

    /// Applies `plan` to requests whose receipt belongs to `subscriberID` (overrides the global
    /// plan for it); nil removes it. Restarts that subscriber's sequence.
    public func setFaults(_ plan: FaultPlan?, forSubscriberID subscriberID: Int64) {
        faults.set(plan, forSubscriberID: subscriberID)
    }

    /// Applies `plan` to every request (each subscriber steps through it separately); nil removes it.
    /// Restarts every subscriber's sequence. A plan with `steps` remembers one small cursor per
    /// subscriber it touched (use `fraction` to limit that at million-receipt scale).
    public func setGlobalFaults(_ plan: FaultPlan?) {
        faults.setGlobal(plan)
    }

    /// Removes every fault plan.
    public func clearFaults() {
        faults.clear()
    }
}
