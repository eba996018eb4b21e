import AppleSignedData
import Hummingbird
import Logging
import NIOCore
import SubReconModel

/// Answers every request the receiver gets: Apple's POSTs on the notification path go to the
/// intake; `GET /metrics` and `GET /healthz` are for operators; other paths 404, other methods 405.
/// A plain switch rather than Hummingbird's router, whose answer to a wrong method is 404.
struct NotificationResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let path: String
    let maxBodyBytes: Int
    let intake: any NotificationIntake
    let metrics: NotificationReceiverMetrics
    let wallClockMs: @Sendable () -> Int64
    /// Metrics read from the store on each scrape (the events'), after the receiver's own; empty
    /// when the store cannot be read then.
    let storeMetrics: (@Sendable () async -> String)?
    let logger: Logger

    static let metricsPath = "/metrics"
    static let healthPath = "/healthz"

    func respond(to request: Request, context: Context) async throws -> Response {
        switch request.uri.path {
        case path:
            guard request.method == .post else { return Self.methodNotAllowed(allow: "POST") }
            return try await receive(request)
        case Self.metricsPath:
            guard request.method == .get else { return Self.methodNotAllowed(allow: "GET") }
            let text = metrics.exposition() + (await storeMetrics?() ?? "")
            return Self.text(.ok, text, contentType: "text/plain; version=0.0.4; charset=utf-8")
        case Self.healthPath:
            guard request.method == .get else { return Self.methodNotAllowed(allow: "GET") }
            return Self.text(.ok, "ok\n")
        default:
            return Self.text(.notFound, "not found\n")
        }
    }

    /// One notification: its body (at most `maxBodyBytes`) to the intake, the intake's result to
    /// the status Apple acts on: 200 done (never resent), 400 refused, 503 resend later.
    private func receive(_ request: Request) async throws -> Response {
        let started = ContinuousClock.now
        metrics.received(atMs: wallClockMs())
        defer { metrics.answered(afterSeconds: Self.seconds(since: started)) }

        // A declared length over the limit is refused before a byte of the body is read; the server
        // then reads the rest and throws it away (never buffered), so the client sees the 413
        // instead of a connection reset.
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > maxBodyBytes {
            return tooLarge(bytes: declared)
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: maxBodyBytes)
        } catch is NIOTooManyBytesError {
            return tooLarge(bytes: nil)
        }
        let bytes = Array(body.readableBytesView)
        switch await intake.receive(body: bytes, source: .receiver) {
        case .stored(let uuid, let outcome, let duplicate, let signedDateMs):
            metrics.stored(outcome, duplicate: duplicate, lagSeconds: Double(wallClockMs() - signedDateMs) / 1000)
            // The processor has logged it (uuid, type, outcome, source): one line per notification.
            logger.debug("answered 200", metadata: ["notification.uuid": "\(uuid)", "bytes": "\(bytes.count)"])
            return Response(status: .ok)
        case .refused(let reason, let message):
            metrics.rejected(reason.rawValue)
            logger.notice(
                "notification refused",
                metadata: ["reason": "\(reason.rawValue)", "error": "\(message)", "bytes": "\(bytes.count)"])
            return Self.text(.badRequest, "\(reason.rawValue): \(message)\n")
        case .unavailable(let message):
            metrics.rejected("unavailable")
            logger.warning("notification not stored, answered 503", metadata: ["error": "\(message)", "bytes": "\(bytes.count)"])
            // The cause stays in the log: it may name the database host.
            return Self.text(.serviceUnavailable, "store unavailable, retry later\n")
        }
    }

    private func tooLarge(bytes: Int?) -> Response {
        metrics.rejected("too_large")
        logger.notice(
            "notification body over the limit, answered 413",
            metadata: ["bytes": "\(bytes.map(String.init) ?? "more than \(maxBodyBytes)")", "limit": "\(maxBodyBytes)"])
        return Self.text(.contentTooLarge, "body larger than \(maxBodyBytes) bytes\n")
    }

    private static func methodNotAllowed(allow: String) -> Response {
        var response = text(.methodNotAllowed, "method not allowed\n")
        response.headers[.allow] = allow
        return response
    }

    private static func text(_ status: HTTPResponse.Status, _ text: String, contentType: String = "text/plain; charset=utf-8")
        -> Response
    {
        Response(
            status: status, headers: [.contentType: contentType], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        (ContinuousClock.now - start).seconds
    }
}
