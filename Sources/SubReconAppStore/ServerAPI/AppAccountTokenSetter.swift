import Foundation
import SubReconModel

/// Set App Account Token: asks Apple to attach `token` to a purchase made without one (the app
/// could not attach it), in production and, when Apple does not know the purchase there, in the
/// sandbox. Transient failures (429, 5xx, no answer) are retried as a run retries them; Apple's
/// refusals are returned with Apple's error name, never retried.
package struct AppAccountTokenSetter: Sendable {
    package let connection: ServerAPIConnection
    let sleep: RetryPolicy.Sleep

    package init(connection: ServerAPIConnection, sleep: @escaping RetryPolicy.Sleep = RetryPolicy.taskSleep) {
        self.connection = connection
        self.sleep = sleep
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

    /// One PUT, retried by the policy every Apple call shares (no answer, 429, 408, 5xx, Apple's
    /// `…RetryableError` codes); any other refusal is final.
    private func sendRetrying(_ url: String, body: [UInt8]) async -> Result<Void, Failure> {
        let retried: RetryPolicy.Retried<Void, Failure> = await connection.retryPolicy.run(sleep: sleep) { _ in
            switch await connection.send("PUT", url, body: body) {
            case .success: return .success(())
            case .failure(.refused(let status, let code, let retryAfter)) where RetryPolicy.isTransient(status: status, code: code):
                return .transient(.unavailable("HTTP \(status)\(code.map { ", \($0)" } ?? "")"), retryAfter: retryAfter)
            case .failure(.refused(let status, let code, _)): return .failure(.refused(status: status, errorCode: code))
            case .failure(.transport(let error)):
                return error.isTransient ? .transient(.unavailable("\(error)")) : .failure(.unavailable("\(error)"))
            case .failure(.noToken(let why)): return .failure(.unavailable("no bearer token: \(why)"))
            case .failure(.stopping): return .failure(.unavailable("stopping"))
            }
        }
        switch retried {
        case .success: return .success(())
        case .failure(let failure, _), .exhausted(let failure, _): return .failure(failure)
        case .cancelled: return .failure(.unavailable("stopping"))
        }
    }
}
