import AppleSignedData
import Foundation
import Logging
import NotificationReceiver
import SubRecon
import SubReconAppStore
import SubReconHTTP
import SubReconModel
import SubReconStore

/// A `NotificationReceiverServer` running in this process on a free loopback port, with a client
/// for it. `stop()` shuts it down gracefully and returns what `run()` ended with.
struct RunningReceiver: Sendable {
    let server: NotificationReceiverServer
    let url: String
    /// `http://127.0.0.1:PORT`, for the other paths.
    let base: String
    let client: CurlTransport
    private let running: Task<Void, any Error>

    static func start(
        intake: any NotificationIntake, logger: Logger = Logger(label: "receiver-test") { _ in SwiftLogNoOpLogHandler() },
        connections: Int = 4, wallClockMs: @escaping @Sendable () -> Int64 = { WallClock.unixMilliseconds() }
    ) async throws -> RunningReceiver {
        let server = NotificationReceiverServer(
            configuration: .init(host: "127.0.0.1", port: 0, handlesSignals: false), intake: intake, logger: logger,
            wallClockMs: wallClockMs)
        let running = Task { try await server.run() }
        guard let url = await server.listeningURL() else {
            try await running.value
            throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the receiver stopped before listening"])
        }
        let base = String(url.dropLast(NotificationReceiverConfiguration.defaultPath.count))
        return RunningReceiver(
            server: server, url: url, base: base, client: CurlTransport(maxConnections: connections), running: running)
    }

    func post(_ body: [UInt8], to url: String? = nil) async throws -> HTTPResponse {
        try await client.send(
            HTTPRequest(url: url ?? self.url, headers: [("Content-Type", "application/json")], body: body, timeout: .seconds(30)))
    }

    func get(_ path: String) async throws -> HTTPResponse {
        try await client.send(HTTPRequest(url: base + path, method: "GET", timeout: .seconds(30)))
    }

    /// Graceful shutdown; returns once `run()` has.
    func stop() async throws {
        await server.shutDown()
        try await running.value
        client.shutdown()
    }

    /// Waits for `run()` to return without asking it to stop.
    func finished() async throws {
        try await running.value
    }
}
