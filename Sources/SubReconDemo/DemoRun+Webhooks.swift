import AppleSignedData
import Foundation
import Logging
import SubRecon
import SubReconHTTP
import SubReconModel
import SubReconStore

extension DemoRun {
    /// The run's and the notification's events, delivered as signed webhooks to a small receiver
    /// the demo starts on loopback, each signature checked as a backend would; a few lines showing
    /// some of them.
    static func deliverEvents(_ database: AppDatabase, logger: Logger) async throws -> [String] {
        let receiver = try DemoWebhookReceiver()
        defer { receiver.stop() }
        let secret = try WebhookSecret(text: WebhookSecret.generate())
        let signer = WebhookSigner(secrets: [secret])
        let options = WebhookDeliveryOptions(
            everyApp: WebhookTarget(url: receiver.url) { id, timestamp, body in
                signer.headers(eventID: id, timestampSeconds: timestamp, body: body)
            }, scheduleSeconds: [0, 1, 1], leaseMs: 60_000, userAgent: SubReconVersion.userAgent)
        let transport = CurlTransport(maxConnections: options.concurrency, maxResponseBytes: WebhookDeliverer.maxAnswerBytes)
        defer { transport.shutdown() }
        let summary = try await WebhookDeliverer(
            store: database, transport: transport, options: options, clock: { WallClock.unixMilliseconds() }, logger: logger
        ).run(until: .drained(deadlineMs: WallClock.unixMilliseconds() + 10_000))

        let deliveries = receiver.deliveries
        let verified = deliveries.filter { delivery in
            guard let id = delivery.headers["webhook-id"], let timestamp = delivery.headers["webhook-timestamp"].flatMap(Int64.init)
            else { return false }
            return delivery.headers["webhook-signature"]
                == signer.signature(eventID: id, timestampSeconds: timestamp, body: delivery.body)
        }
        var lines = [
            "webhooks: \(summary.delivered) event(s) delivered to a receiver the demo started at \(receiver.url), "
                + "\(verified.count) signature(s) checked (Standard Webhooks); \(summary.pending) pending. A few:"
        ]
        // One of each type first, then others, up to four, by position.
        let events = deliveries.compactMap { try? JSONSerialization.jsonObject(with: Data($0.body)) as? [String: Any] }
            .sorted { ($0["position"] as? Int ?? 0) < ($1["position"] as? Int ?? 0) }
        var shownTypes: Set<String> = []
        let firstOfEachType = events.filter { shownTypes.insert($0["type"] as? String ?? "").inserted }
        let others = events.filter { event in !firstOfEachType.contains { ($0["id"] as? String) == (event["id"] as? String) } }
        for event in (firstOfEachType + others).prefix(4) {
            let after = event["after"] as? [String: Any]
            let user = event["user_id"] as? String ?? ""
            let seq = (event["seq"] as? Int).map { "seq \($0)" } ?? "no seq"
            let position = (event["position"] as? Int).map(String.init) ?? "?"
            let status = (after?["status"] as? String).map { " -> \($0)" } ?? ""
            lines.append("  #\(position) \(event["type"] as? String ?? "") \(user) \(seq) (\(event["source"] as? String ?? "")\(status))")
        }
        lines.append("  (`report events` lists them all; docs/webhooks.md says how a backend verifies and uses them)")
        return lines
    }
}
