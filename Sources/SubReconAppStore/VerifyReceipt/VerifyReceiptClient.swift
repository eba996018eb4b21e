import Foundation
import Logging
import SubReconHTTP
import SubReconModel

/// Asks Apple's verifyReceipt about one receipt and classifies the answer.
///
/// Routing: the receipt's remembered environment first (production when unknown); 21007 sends the
/// same body to sandbox, 21008 to production, at most one switch per receipt per run.
public struct VerifyReceiptClient: ReceiptVerifier {
    package let transport: any HTTPTransport
    package let endpoints: VerifyReceiptEndpoints
    package let sharedSecret: SharedSecret
    package let requestTimeout: Duration
    package let retryPolicy: RetryPolicy
    package let logger: Logger

    public init(
        transport: any HTTPTransport, endpoints: VerifyReceiptEndpoints, sharedSecret: SharedSecret,
        requestTimeout: Duration = .seconds(30), retryPolicy: RetryPolicy = .standard, logger: Logger
    ) {
        self.transport = transport
        self.endpoints = endpoints
        self.sharedSecret = sharedSecret
        self.requestTimeout = requestTimeout
        self.retryPolicy = retryPolicy
        self.logger = logger
    }

    /// Verifies with retries: a retryable failure is tried again after a jittered backoff, up to
    /// the policy's attempts. Cancellation (a graceful stop) ends the waiting, not the attempt.
    public func verify(_ receipt: ReceiptToVerify) async -> VerificationOutcome {
        if receipt.receiptData.isEmpty {
            return .failed(
                VerificationFailure(
                    environment: receipt.environment,
                    message: "this receipt row holds only a transaction id (no receipt data): verifyReceipt cannot check it; "
                        + "run with SUBRECON_APPLE_API=server-api"))
        }
        return await retryPolicy.verify(receipt, logger: logger) { await verifyOnce(receipt) }
    }

    /// One verification: at most two requests (one environment switch).
    package func verifyOnce(_ receipt: ReceiptToVerify) async -> VerificationOutcome {
        var environment = receipt.environment ?? .production
        var switched = false
        let body = Self.requestBody(receiptData: receipt.receiptData, secret: sharedSecret)
        while true {
            let target: ReceiptEnvironment
            switch await attempt(body: body, environment: environment, receiptID: receipt.id) {
            case .done(let result): return result
            case .reroute(let other): target = other
            }
            if switched {
                return .failed(
                    VerificationFailure(
                        appleStatus: target == .sandbox ? 21007 : 21008, environment: environment,
                        message: "Apple sent the receipt back and forth between production and sandbox; it stays due"))
            }
            logger.debug(
                "receipt belongs to the other environment; resending",
                metadata: ["receipt.id": "\(receipt.id)", "apple.environment": "\(target.rawValue)"])
            switched = true
            environment = target
        }
    }

    private enum Attempt {
        case done(VerificationOutcome)
        case reroute(ReceiptEnvironment)
    }

    private func attempt(body: [UInt8], environment: ReceiptEnvironment, receiptID: Int64) async -> Attempt {
        let url = endpoints.url(for: environment)
        let request = HTTPRequest(
            url: url, headers: [("Content-Type", "application/json")], body: body, timeout: requestTimeout)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            return .done(
                .failed(VerificationFailure(environment: environment, message: error.description, isRetryable: error.isTransient)))
        }
        guard response.status == 200 else {
            var message = "HTTP \(response.status) from \(url)"
            let retryAfter = response.headers["retry-after"].flatMap(Self.retryAfter)
            if let header = response.headers["retry-after"] { message += " (Retry-After: \(header.prefix(40)))" }
            let transient = response.status == 429 || response.status == 408 || response.status >= 500
            return .done(
                .failed(
                    VerificationFailure(
                        environment: environment, message: message, isRetryable: transient, retryAfter: retryAfter)))
        }
        let answer: VerifyReceiptResponse
        do {
            answer = try VerifyReceiptResponse.decode(response.body)
        } catch {
            // A truncated or garbled body is a transport accident until proven otherwise.
            return .done(
                .failed(VerificationFailure(environment: environment, message: error.description, isRetryable: true)))
        }
        logger.debug(
            "verifyReceipt answered",
            metadata: ["receipt.id": "\(receiptID)", "apple.status": "\(answer.rawStatus)", "apple.url": "\(url)"])
        return Self.classify(answer, askedAt: environment)
    }

    /// Status → what the run does with the receipt (Apple's 'status' page, App Store Receipts;
    /// docs/run.md and docs/failure-handling.md say what we do with each).
    private static func classify(_ answer: VerifyReceiptResponse, askedAt environment: ReceiptEnvironment) -> Attempt {
        let answered = answer.environment ?? environment
        switch answer.status {
        case .valid, .legacySubscriptionExpired:
            if answer.malformedEntryCount > 0 {
                return .done(
                    .failed(
                        VerificationFailure(
                            appleStatus: answer.rawStatus, environment: environment,
                            message: "Apple's answer held \(answer.malformedEntryCount) entries that are not objects; nothing was changed")))
            }
            if let raw = answer.rawEnvironment, answer.environment == nil {
                return .done(
                    .failed(
                        VerificationFailure(
                            appleStatus: answer.rawStatus, environment: environment,
                            message: "Apple's answer names an unknown environment \"\(raw.prefix(40))\"; nothing was changed")))
            }
            return .done(.answered(answer, environment: answered))
        case .sandboxReceiptSentToProduction:
            return environment == .production ? .reroute(.sandbox) : failed(answer, environment)
        case .productionReceiptSentToSandbox:
            return environment == .sandbox ? .reroute(.production) : failed(answer, environment)
        case .receiptNotAuthenticated:
            return .done(.invalid(appleStatus: answer.rawStatus, environment: answer.environment))
        case .accountNotFound:
            return .done(.accountGone(environment: answer.environment))
        case .sharedSecretMismatch:
            return .done(.stopRun(.sharedSecretMismatch))
        case .requestNotReadable:
            return .done(.stopRun(.requestRejected))
        case .malformedReceiptData, .serverUnavailable, .internalDataAccessError, .internalError, .undocumented:
            return failed(answer, environment)
        }
    }

    private static func failed(_ answer: VerifyReceiptResponse, _ environment: ReceiptEnvironment) -> Attempt {
        var message = "Apple answered \(answer.status)"
        if let retryable = answer.isRetryable { message += retryable ? ", retryable" : ", not retryable" }
        return .done(
            .failed(
                VerificationFailure(
                    appleStatus: answer.rawStatus, environment: environment, message: message,
                    isRetryable: isRetryable(answer))))
    }

    /// Apple's 'status' page (App Store Receipts) says to try 21002, 21005 and 21009 again, and its
    /// 'responseBody' page's `is_retryable` covers 211xx: those are worth retrying (211xx unless
    /// Apple says `is_retryable: false`); any status Apple flags retryable is too; an undocumented
    /// status is not retried within the run (it stays due for the next one).
    package static func isRetryable(_ answer: VerifyReceiptResponse) -> Bool {
        if let flag = answer.isRetryable { return flag }
        switch answer.status {
        case .malformedReceiptData, .serverUnavailable, .internalDataAccessError, .internalError: return true
        default: return false
        }
    }

    /// `Retry-After` in seconds (the HTTP-date form is rare from Apple and is treated as absent).
    package static func retryAfter(_ header: String) -> Duration? {
        guard let seconds = Int(header.trimmingCharacters(in: .whitespaces)), seconds >= 0 else { return nil }
        return .seconds(seconds)
    }

    /// `{"receipt-data":…,"password":…,"exclude-old-transactions":true}` as strict JSON.
    public static func requestBody(receiptData: String, secret: SharedSecret) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(receiptData.utf8.count + secret.value.utf8.count + 80)
        out.append(contentsOf: #"{"receipt-data":""#.utf8)
        appendEscaped(receiptData, to: &out)
        out.append(contentsOf: #"","password":""#.utf8)
        appendEscaped(secret.value, to: &out)
        out.append(contentsOf: #"","exclude-old-transactions":true}"#.utf8)
        return out
    }

    private static func appendEscaped(_ text: String, to out: inout [UInt8]) {
        // Base64 receipts never need escaping: check the contiguous UTF-8 in one tight loop and copy
        // it whole (a closure over String.UTF8View cost many times this one pass, on every request;
        // measured: docs/performance.md, "Earlier figures behind the code's choices").
        var text = text
        let copiedWhole = text.withUTF8 { bytes -> Bool in
            for byte in bytes where byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 {
                return false
            }
            out.append(contentsOf: bytes)
            return true
        }
        if copiedWhole { return }
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [92, 34])
            case UInt8(ascii: "\\"): out.append(contentsOf: [92, 92])
            case 0..<0x20: out.append(contentsOf: [92, 117, 48, 48, hex[Int(byte >> 4)], hex[Int(byte & 15)]])
            default: out.append(byte)
            }
        }
    }
}
