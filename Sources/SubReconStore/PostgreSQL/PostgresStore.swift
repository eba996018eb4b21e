import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization
import SubReconModel
import _ConnectionPoolModule

/// The PostgreSQL store: the same tables and reports as SQLite, for an app backend that already
/// runs PostgreSQL and for several workers on several hosts. Due receipts are claimed, not paged
/// (`PostgresStore+Claims.swift`); each receipt's writes are one transaction, batched several
/// receipts per round trip (`PostgresStore+Reconciliation.swift`).
public struct PostgresStore: Sendable, SubscriptionStore {
    package let connection: PostgresConnectionOwner
    public let location: String
    public var splitsDueReceipts: Bool { true }
    public let claimTimeoutMs: Int64
    /// This worker's name in claims and runs: `HOST:PID`.
    public let worker: String
    /// How long an unreachable database is retried before the operation fails (exit 74).
    package let retryWindow: Duration

    /// Connects (retrying for `retryWindow`), creates or migrates the schema under a lock, and
    /// returns the store. The caller closes it.
    public static func open(
        configuration: PostgresClient.Configuration, firstConnection: PostgresConnection.Configuration, maskedURL: String,
        claimTimeoutMs: Int64 = 120_000, retryWindow: Duration = .seconds(120), logger: Logger
    ) async throws(StoreError) -> PostgresStore {
        try await connectOnce(firstConnection, retryWindow: retryWindow, logger: logger)
        var configuration = configuration
        configuration.options.connectTimeout = .seconds(10)
        // A worker uses one connection for claims and writes and one for the watcher and reads.
        configuration.options.maximumConnections = 4
        let owner = PostgresConnectionOwner(configuration: configuration, logger: logger)
        let store = PostgresStore(
            connection: owner, location: maskedURL, claimTimeoutMs: max(1000, claimTimeoutMs),
            worker: "\(ProcessInfo.processInfo.hostName):\(getpid())", retryWindow: retryWindow)
        do {
            try await store.withConnection("creating or migrating the schema") { connection in
                try await PostgresSchema.migrate(connection, logger: owner.logger)
            }
        } catch {
            await owner.close()
            throw error
        }
        return store
    }

    public func close() async { await connection.close() }

    /// One connection outside the pool, retried while the server cannot be reached: the pool
    /// hides why connecting failed, and a refused password must be exit 2 at once, not a retry.
    package static func connectOnce(
        _ configuration: PostgresConnection.Configuration, retryWindow: Duration, logger: Logger
    ) async throws(StoreError) {
        let deadline = ContinuousClock.now + retryWindow
        var delay = Duration.milliseconds(200)
        var retries = 0
        while true {
            do {
                let connection = try await race(until: deadline) {
                    try await PostgresConnection.connect(configuration: configuration, id: 0, logger: quiet)
                }
                try? await connection.close()
                return
            } catch {
                let failure = PostgresFailure(error)
                if failure.isAuthentication { throw .credentialsRefused(reason: failure.message) }
                guard failure.isUnreachable, ContinuousClock.now + delay < deadline else {
                    throw .failed(operation: "connecting", reason: failure.message + retried(retries, retryWindow))
                }
                announceRetry(retries, "cannot reach the database", failure, retryWindow, delay, logger)
                retries += 1
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    /// The first retry is a warning saying why, for how long and what stops it; the others are
    /// debug lines (an unreachable server otherwise wrote the same warning every few seconds).
    package static func announceRetry(
        _ retries: Int, _ what: String, _ failure: PostgresFailure, _ window: Duration, _ delay: Duration, _ logger: Logger
    ) {
        if retries == 0 {
            let seconds = window.components.seconds
            logger.warning(
                "\(what) (\(failure.message)); retrying for up to \(seconds) s (SUBRECON_DB_RETRY_SECONDS), as a restarting or failing-over PostgreSQL comes back, then exit 74")
        } else {
            logger.debug("\(what) (\(failure.message)); retrying in \(delay)")
        }
    }

    /// How long the failure was retried, for the final message.
    static func retried(_ retries: Int, _ window: Duration) -> String {
        retries == 0 ? "" : " (retried for \(window.components.seconds) s)"
    }

    // MARK: - Running SQL

    /// Runs `body` on a leased connection. A database that cannot be reached, or drops the
    /// connection, is retried with backoff for `retryWindow`; every other error is final. `body`
    /// must be safe to run again (each attempt is its own transaction).
    package func withConnection<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(StoreError) -> T {
        let deadline = ContinuousClock.now + retryWindow
        var delay = Duration.milliseconds(200)
        var retries = 0
        while true {
            do {
                // An attempt may not outlive the window: the pool waits for a connection rather
                // than failing at once while the server is down.
                return try await Self.race(until: deadline) { [client = connection.client] in
                    try await client.withConnection { connection in try await body(connection) }
                }
            } catch {
                let failure = PostgresFailure(error)
                if failure.isAuthentication { throw .credentialsRefused(reason: failure.message) }
                guard failure.isUnreachable, ContinuousClock.now + delay < deadline, !Task.isCancelled else {
                    throw .failed(operation: operation, reason: failure.message + Self.retried(retries, retryWindow))
                }
                Self.announceRetry(
                    retries, "the database is unreachable while \(operation)", failure, retryWindow, delay, connection.logger)
                retries += 1
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            }
        }
    }

    /// `body`'s result, or `StoreError.failed` when `deadline` comes first. Then `body` is
    /// cancelled and abandoned, not awaited: a query on a connection the server dropped may never
    /// answer a cancellation, and a task group would wait for it forever.
    package static func race<T: Sendable>(until deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () async throws -> T)
        async throws -> T
    {
        let outcome = FirstOutcome<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.waiting(continuation)
                let work = Task {
                    do { outcome.finish(.success(try await body())) } catch { outcome.finish(.failure(error)) }
                }
                let timer = Task {
                    try? await Task.sleep(until: deadline, clock: .continuous)
                    guard !Task.isCancelled else { return }
                    let reason = StoreError.failed(operation: "waiting for the database", reason: "no answer within the retry window")
                    if outcome.finish(.failure(reason)) { work.cancel() }
                }
                outcome.onFinish { timer.cancel() }
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
    }

    /// `withConnection` inside one transaction.
    package func withTransaction<T: Sendable>(
        _ operation: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws(StoreError) -> T {
        try await withConnection(operation) { connection in
            try await connection.query("BEGIN", logger: Self.quiet)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: Self.quiet)
                return result
            } catch {
                try? await connection.query("ROLLBACK", logger: Self.quiet)
                throw error
            }
        }
    }

    /// Query logs stay off: bound values include receipts (personal data).
    package static let quiet = Logger(label: "subrecon.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// Owns the connection pool and the task that runs it (`PostgresClient.run()`), for one command.
package final class PostgresConnectionOwner: Sendable {
    package let client: PostgresClient
    package let logger: Logger
    private let runner: Task<Void, Never>
    /// When this process last released other workers' lapsed claims (see `claimDue`).
    private let lastClaimRescue = Mutex<ContinuousClock.Instant?>(nil)

    package init(configuration: PostgresClient.Configuration, logger: Logger) {
        let client = PostgresClient(configuration: configuration, backgroundLogger: PostgresStore.quiet)
        self.client = client
        self.logger = logger
        // Unstructured: the pool lives as long as the store, no one task; `close()` cancels and awaits it.
        runner = Task { await client.run() }
    }

    package func close() async {
        runner.cancel()
        await runner.value
    }

    /// Whether lapsed claims are to be released now: the first time, then once per `interval`
    /// (a claim lasts minutes, so looking on every claim only cost the database a scan each time).
    package func claimRescueIsDue(every interval: Duration) -> Bool {
        lastClaimRescue.withLock { last in
            let now = ContinuousClock.now
            guard let previous = last, now - previous < interval else {
                last = now
                return true
            }
            return false
        }
    }
}

extension PostgresConnection {
    /// Runs `sql` written with `?` placeholders (the SQL both stores share) and returns its rows.
    @discardableResult
    package func run(_ sql: String, _ arguments: [SQLArgument] = []) async throws -> PostgresRowSequence {
        try await query(PostgresSQL.query(sql, arguments), logger: PostgresStore.quiet)
    }

    /// Every row of `sql`, transformed.
    package func all<T>(_ sql: String, _ arguments: [SQLArgument] = [], _ transform: (PostgresRandomAccessRow) throws -> T)
        async throws -> [T]
    {
        var result: [T] = []
        for try await row in try await run(sql, arguments) { result.append(try transform(row.makeRandomAccess())) }
        return result
    }

    /// The first column of the first row, as an integer.
    package func integer(_ sql: String, _ arguments: [SQLArgument] = []) async throws -> Int64? {
        for try await row in try await run(sql, arguments) {
            return try row.makeRandomAccess()[0].decode(Int64?.self)
        }
        return nil
    }
}

/// What went wrong with PostgreSQL, in an operator's words (never a password or a bound value).
package struct PostgresFailure {
    package let message: String
    /// The server could not be reached or dropped the connection (or rolled back a deadlock): try again.
    package let isUnreachable: Bool
    package let isAuthentication: Bool

    package init(_ error: any Error) {
        var error = error
        if let transaction = error as? PostgresTransactionError {
            error = transaction.closureError ?? transaction.commitError ?? transaction.beginError ?? error
        }
        if let pool = error as? ConnectionPoolError {
            // No connection could be made for a while (the pool's own circuit breaker).
            message = "cannot connect (\(pool))"
            isUnreachable = pool != .poolShutdown && pool != .requestCancelled
            isAuthentication = false
            return
        }
        guard let psql = error as? PSQLError else {
            if let store = error as? StoreError {
                message = store.description
            } else {
                message = "\(error)"
            }
            isUnreachable = false
            isAuthentication = false
            return
        }
        let sqlState = psql.serverInfo?[.sqlState]
        // 28P01 invalid_password, 28000 invalid_authorization_specification.
        isAuthentication =
            sqlState == "28P01" || sqlState == "28000" || psql.code == .authMechanismRequiresPassword
            || psql.code == .saslError
        // 57P01 admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 08xxx connection
        // exceptions; and 40P01 deadlock, 40001 serialization failure: rolled back, worth another try.
        let droppedByServer = sqlState.map {
            $0.hasPrefix("08") || ["57P01", "57P02", "57P03", "40P01", "40001"].contains($0)
        } ?? false
        isUnreachable =
            droppedByServer || psql.code == .connectionError || psql.code == .serverClosedConnection
            || psql.code == .uncleanShutdown
        if let serverMessage = psql.serverInfo?[.message] {
            message = "\(serverMessage) (SQLSTATE \(sqlState ?? "?"))"
        } else if psql.code == .connectionError, let underlying = psql.underlying {
            message = Self.connectionProblem(underlying)
        } else if psql.code == .serverClosedConnection || psql.code == .uncleanShutdown {
            message = "the server closed the connection (restarting, or not a PostgreSQL server?)"
        } else if let underlying = psql.underlying {
            message = "\(psql.code): \(underlying)"
        } else {
            message = "\(psql.code)"
        }
    }

    /// Why no connection could be made, in an operator's words, from the socket's errno (rather
    /// than NIO's `SingleConnectionFailure(target: …, error: …) (errno: 111)`).
    static func connectionProblem(_ underlying: any Error) -> String {
        let text = "\(underlying)"
        if text.contains("UnknownHost") || text.contains("DNS error") {
            return "the host name cannot be resolved (DNS); check the host in --db / SUBRECON_DB"
        }
        let errnos = ((underlying as? NIOConnectionError)?.connectionErrors ?? []).compactMap { ($0.error as? IOError)?.errnoCode }
            + [(underlying as? IOError)?.errnoCode].compactMap { $0 }
        switch errnos.first {
        case ECONNREFUSED: return "nothing accepts connections at that host and port (is PostgreSQL running, and on that port?)"
        case ETIMEDOUT: return "no answer from the host (down, or a firewall drops the connection)"
        case EHOSTUNREACH, ENETUNREACH: return "the host cannot be reached from here (network or routing)"
        default: return "cannot connect (\(text))"
        }
    }
}

/// The first of several results, handed to one waiting continuation exactly once.
package final class FirstOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var result: Result<T, any Error>?
    private var finished: (@Sendable () -> Void)?

    package func waiting(_ continuation: CheckedContinuation<T, any Error>) {
        lock.lock()
        if let result {
            lock.unlock()
            continuation.resume(with: result)
        } else {
            self.continuation = continuation
            lock.unlock()
        }
    }

    /// Runs `action` once a result is in (at once if it already is).
    package func onFinish(_ action: @escaping @Sendable () -> Void) {
        lock.lock()
        if result != nil {
            lock.unlock()
            action()
        } else {
            finished = action
            lock.unlock()
        }
    }

    /// True when this was the first result.
    @discardableResult
    package func finish(_ result: Result<T, any Error>) -> Bool {
        lock.lock()
        guard self.result == nil else {
            lock.unlock()
            return false
        }
        self.result = result
        let (continuation, finished) = (self.continuation, self.finished)
        self.continuation = nil
        self.finished = nil
        lock.unlock()
        continuation?.resume(with: result)
        finished?()
        return true
    }
}
