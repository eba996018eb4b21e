import FlyingFox
import FlyingSocks
import Foundation
import Synchronization

/// A local HTTP server that answers like Apple's legacy verifyReceipt service, for the demo, the
/// integration tests and the benchmarks. Production is served at `/verifyReceipt`, the sandbox at
/// `/sandbox/verifyReceipt`; keep-alive connections are supported, latency is applied per request
/// without blocking others, and faults can be injected while it runs.
///
/// Stateless with respect to receipts: each receipt carries its own account (see `SimulatedReceipt`).
public final class AppStoreSimulator: Sendable {
    /// Errors from `start`.
    public enum StartError: Error, Equatable {
        case alreadyStarted
        case didNotStartListening
    }

    private struct Running: Sendable {
        let server: HTTPServer
        let task: Task<Void, Never>
        let host: String
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
    private let port = ListeningPort()
    private let lifecycle = Mutex<Lifecycle>(.idle)

    public init(options: SimulatorOptions = SimulatorOptions()) {
        self.options = options
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
            let (server, task, actualPort) = try await launch(host: host, port: requestedPort)
            port.value = actualPort
            lifecycle.withLock { $0 = .running(Running(server: server, task: task, host: host)) }
            return actualPort
        } catch {
            lifecycle.withLock { $0 = .idle }
            throw error
        }
    }

    private func launch(host: String, port requestedPort: UInt16) async throws -> (HTTPServer, Task<Void, Never>, UInt16) {
        let handler = SimulatorHTTPHandler(
            responder: VerifyReceiptResponder(sharedSecret: options.sharedSecret, bundleID: options.bundleID),
            clock: options.clock,
            latency: options.latency,
            faults: faults,
            statistics: recorder,
            serverPort: port)
        let config = HTTPServer.Configuration(
            address: try sockaddr_in.inet(ip4: host, port: requestedPort),
            timeout: Self.seconds(options.requestTimeout),
            // Bodies up to this size are read in one go; larger ones go through FlyingFox's slower
            // streaming path. Requests carry a few KB of receipt (more with big paddings).
            sharedRequestBufferSize: 256 * 1024,
            pool: Self.makeSocketPool(),
            logger: .disabled)
        let server = HTTPServer(config: config, handler: handler)
        let failure = Mutex<(any Error)?>(nil)
        let finished = Atomic<Bool>(false)
        let task = Task {
            do {
                try await server.run()
            } catch {
                failure.withLock { $0 = error }
            }
            finished.store(true, ordering: .sequentiallyConsistent)
        }
        // Poll rather than `waitUntilListening`, so a bind failure surfaces at once with its own error.
        let deadline = ContinuousClock.now + .seconds(10)
        while await !server.isListening {
            if finished.load(ordering: .sequentiallyConsistent) {
                throw failure.withLock { $0 } ?? StartError.didNotStartListening
            }
            if ContinuousClock.now > deadline {
                await server.stop()
                task.cancel()
                throw StartError.didNotStartListening
            }
            try await Task.sleep(for: .milliseconds(1))
        }
        guard case .ip4(_, let actualPort)? = await server.listeningAddress else {
            await server.stop()
            throw StartError.didNotStartListening
        }
        return (server, task, actualPort)
    }

    /// Stops accepting, cancels in-flight requests and waits for the server to finish.
    public func stop() async {
        guard let current = lifecycle.withLock({ state -> Running? in
            guard case .running(let running) = state else { return nil }
            state = .idle
            return running
        }) else { return }
        await current.server.stop(timeout: 0)
        await current.task.value
        port.value = 0
    }

    /// The port it listens on (0 when not started).
    public var listeningPort: UInt16 { port.value }

    /// `http://127.0.0.1:PORT` (or the host it was started on).
    public var baseURL: String {
        let host = lifecycle.withLock { state -> String in
            if case .running(let running) = state { return running.host }
            return "127.0.0.1"
        }
        let urlHost = host == "0.0.0.0" ? "127.0.0.1" : host
        return "http://\(urlHost):\(port.value)"
    }

    /// The production endpoint, `http://127.0.0.1:PORT/verifyReceipt`.
    public var productionURL: String { baseURL + SimulatorEndpoint.production.path }

    /// The sandbox endpoint, `http://127.0.0.1:PORT/sandbox/verifyReceipt`.
    public var sandboxURL: String { baseURL + SimulatorEndpoint.sandbox.path }

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

    private static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return max(1, TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }

    private static func makeSocketPool() -> any AsyncSocketPool {
        #if os(Linux)
        // More events per epoll_wait than the default 20: benchmarks hold 64–128 connections.
        return NoDelaySocketPool(base: SocketPool<ePoll>.ePoll(maxEvents: 256))
        #else
        return NoDelaySocketPool(base: HTTPServer.defaultPool())
        #endif
    }
}
