import Foundation
import SubReconModel

/// Set App Account Token: asks Apple to attach `token` to a purchase made without one (the app
/// could not attach it), in production and, when Apple does not know the purchase there, in the
/// sandbox. Transient failures (429, 5xx, no answer) are retried as a run retries them; Apple's
/// refusals are returned with Apple's error name, never retried.
package struct AppAccountTokenSetter: Sendable {
    package let connection: ServerAPIConnection

    package init(connection: ServerAPIConnection) {
        self.connection = connection
    }

    /// Why Apple did not set the token.
    package enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// Apple refused: its status, error code and the error's name in Apple's documentation.
        case refused(status: Int, errorCode: ServerAPIErrorCode?)
        /// No usable answer after the retries.
        case unavailable(String)

        package var description: String {
            switch self {
            case .refused(let status, let code?):
                "Apple refused to set the app account token: HTTP \(status), \(code)\(code.name == nil ? " (see Apple's error codes)" : "")"
            case .refused(let status, nil):
                status == 401
                    ? "Apple refused to set the app account token: HTTP 401 (the In-App Purchase key, key ID, issuer ID or bundle ID is wrong)"
                    : "Apple refused to set the app account token: HTTP \(status)"
            case .unavailable(let reason): "Apple did not answer the request to set the app account token: \(reason)"
            }
        }
    }

    /// Sets `token` on `originalTransactionID`; returns the environment Apple knew it in.
    package func set(token: String, originalTransactionID: String) async -> Result<ReceiptEnvironment, Failure> {
        let body = Array("{\"appAccountToken\":\"\(token.lowercased())\"}".utf8)
        var last: Failure = .refused(status: 404, errorCode: .originalTransactionIDNotFound)
        for environment in [ReceiptEnvironment.production, .sandbox] {
            let url = connection.endpoints.setAppAccountToken(
                ServerAPIEndpoints.percentEncoded(originalTransactionID), environment: environment)
            switch await sendRetrying(url, body: body) {
            case .success: return .success(environment)
            case .failure(.refused(404, let code)) where code == .originalTransactionIDNotFound || code == .transactionIDNotFound || code == nil:
                last = .refused(status: 404, errorCode: code)
                continue
            case .failure(let failure): return .failure(failure)
            }
        }
        return .failure(last)
    }

    private func sendRetrying(_ url: String, body: [UInt8]) async -> Result<Void, Failure> {
        var attempt = 1
        while true {
            let outcome = await connection.send("PUT", url, body: body)
            let reason: String
            switch outcome {
            case .success: return .success(())
            case .failure(.refused(let status, let code, let retryAfter)) where status == 429 || status >= 500:
                reason = "HTTP \(status)\(code.map { ", \($0)" } ?? "")"
                if attempt < connection.retryPolicy.maxAttempts {
                    try? await Task.sleep(for: min(retryAfter ?? connection.retryPolicy.baseDelay, connection.retryPolicy.maxRetryAfter))
                }
            case .failure(.refused(let status, let code, _)): return .failure(.refused(status: status, errorCode: code))
            case .failure(.transport(let error)): reason = "\(error)"
            case .failure(.noToken(let why)): return .failure(.unavailable("no bearer token: \(why)"))
            case .failure(.stopping): return .failure(.unavailable("stopping"))
            }
            guard attempt < connection.retryPolicy.maxAttempts else { return .failure(.unavailable(reason)) }
            attempt += 1
        }
    }
}
