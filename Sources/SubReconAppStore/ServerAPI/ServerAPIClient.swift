import AppleSignedData
import Foundation
import Logging
import SubReconHTTP
import SubReconModel

/// Asks the App Store Server API about one receipt's customer and classifies the answer.
///
/// Which transaction: the original transaction id learned earlier, else the import's
/// `transaction_id`, else one read from the app receipt itself (no verifyReceipt call). Routing:
/// the remembered environment first (production when unknown); 4040010 is asked once in the
/// other environment. Every signed item is verified (JWS → x5c chain → configured root, then
/// bundle id, environment and the renewal's binding to its transaction) before any of it is used.
/// When the newest transaction of a subscription differs from the stored one, the customer's
/// transaction history is read from the stored revision, so every billed period is recorded.
public struct ServerAPIClient: ReceiptVerifier {
    /// The connection every request of this client goes through (token, limiter, Retry-After).
    package let connection: ServerAPIConnection
    package let verifier: SignedDataVerifier
    package let bundleID: String
    package let appAppleID: Int64?
    package let products: Set<String>
    package let logger: Logger

    package var endpoints: ServerAPIEndpoints { connection.endpoints }
    package var retryPolicy: RetryPolicy { connection.retryPolicy }

    package init(
        connection: ServerAPIConnection, verifier: SignedDataVerifier, bundleID: String, appAppleID: Int64? = nil,
        products: Set<String> = [], logger: Logger
    ) {
        self.connection = connection
        self.verifier = verifier
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.products = products
        self.logger = logger
    }

    /// The stored transaction ids and history revision choose what to ask and what to read.
    public var receiptDetail: ReceiptDetail { .withServerAPIContext }

    public func verify(_ receipt: ReceiptToVerify) async -> VerificationOutcome {
        guard let transactionID = transactionIDToAsk(receipt) else {
            return .invalid(
                appleStatus: nil, environment: receipt.environment,
                message: "no transaction id to ask the App Store Server API about: none stored, none imported, "
                    + "and none readable in the receipt data")
        }
        return await retryPolicy.verify(receipt, logger: logger) { await verifyOnce(receipt, transactionID: transactionID) }
    }

    /// The stored original transaction id, else the imported one, else one from the app receipt.
    package func transactionIDToAsk(_ receipt: ReceiptToVerify) -> String? {
        if let known = receipt.serverAPI.knownSubscriptions.keys.sorted().first { return known }
        if let imported = receipt.serverAPI.importedTransactionID { return imported }
        guard !receipt.receiptData.isEmpty, let contents = try? AppReceiptReader.purchases(base64: receipt.receiptData)
        else { return nil }
        return contents.transactionIDToAsk(products: products)
    }

    /// One verification: the statuses (at most one environment switch), then the history if needed.
    package func verifyOnce(_ receipt: ReceiptToVerify, transactionID: String) async -> VerificationOutcome {
        var environment = receipt.environment ?? .production
        var switched = false
        while true {
            let call = await call(endpoints.subscriptionStatuses(transactionID, environment: environment), environment)
            switch call {
            case .outcome(let outcome):
                return outcome
            case .notFound:
                if switched {
                    return .invalid(
                        appleStatus: ServerAPIErrorCode.transactionIDNotFound.rawValue,
                        environment: receipt.environment ?? .production,
                        message: "the App Store Server API knows transaction \(transactionID) in neither production nor "
                            + "sandbox (4040010); its subscriptions were left as they were")
                }
                switched = true
                environment = environment == .production ? .sandbox : .production
            case .body(let body):
                return await answer(body, environment: environment, receipt: receipt, transactionID: transactionID)
            }
        }
    }

    // MARK: - Answers

    private func answer(
        _ body: [UInt8], environment: ReceiptEnvironment, receipt: ReceiptToVerify, transactionID: String
    ) async -> VerificationOutcome {
        let response: ServerAPIWire.StatusResponse
        do {
            response = try ServerAPIWire.StatusResponse.scan(body)
        } catch {
            return failed("the App Store Server API's answer (\(body.count) bytes) was not the expected JSON", environment, retryable: true)
        }
        if let problem = items.answerProblem(bundleID: response.bundleId, environment: response.environment,
                                       appAppleID: response.appAppleId, askedAt: environment) {
            return failed(problem, environment)
        }
        var transactions: [AppleTransaction] = []
        var renewals: [PendingRenewal] = []
        var needsHistory = false
        for item in (response.data ?? []).flatMap({ $0.lastTransactions ?? [] }) {
            guard let signedTransaction = item.signedTransactionInfo else {
                return failed("an entry of the App Store Server API's answer has no signedTransactionInfo", environment)
            }
            let transaction: SignedTransactionPayload
            do {
                transaction = try await verifiedTransaction(signedTransaction, askedAt: environment)
            } catch {
                return failed(error.message, environment)
            }
            guard let otid = transaction.originalTransactionId, item.originalTransactionId == nil || item.originalTransactionId == otid
            else {
                return failed("a signed transaction names another original transaction id than its entry", environment)
            }
            transactions.append(transaction.appleTransaction)
            if let signedRenewal = item.signedRenewalInfo {
                do {
                    let renewal = try await verifiedRenewal(signedRenewal, of: transaction, askedAt: environment)
                    renewals.append(renewal.pendingRenewal)
                } catch {
                    return failed(error.message, environment)
                }
            }
            // Something was billed since the last check, or this subscription is new to us, or its
            // history was never read (a database moved over from verifyReceipt): read the history.
            let stored = receipt.serverAPI.knownSubscriptions[otid] ?? nil
            if stored != transaction.transactionId || receipt.serverAPI.historyRevision == nil { needsHistory = true }
        }

        var revision: String? = nil
        if needsHistory {
            switch await history(of: transactionID, from: receipt.serverAPI.historyRevision, environment: environment) {
            case .success(let read):
                revision = read.revision
                let known = Set(transactions.compactMap(\.transactionID))
                transactions += read.transactions.filter { $0.transactionID.map { !known.contains($0) } ?? true }
            case .failure(let failure):
                return failure.outcome
            }
        }
        logger.debug(
            "App Store Server API answered",
            metadata: [
                "receipt.id": "\(receipt.id)", "apple.environment": "\(environment.rawValue)",
                "apple.transactions": "\(transactions.count)", "apple.history": "\(needsHistory)",
            ])
        return .answered(
            AppleAccount(
                environment: environment, transactions: transactions, renewals: renewals, appleStatus: 0,
                historyRevision: revision))
    }

    private struct HistoryRead {
        var transactions: [AppleTransaction]
        var revision: String?
    }

    /// Every transaction of the customer after `revision`, page by page (`hasMore`), each verified.
    private func history(
        of transactionID: String, from start: String?, environment: ReceiptEnvironment
    ) async -> Result<HistoryRead, HistoryFailure> {
        var read = HistoryRead(transactions: [], revision: start)
        // Bounded: a customer with more than 1,000 pages (20,000 transactions) is not a subscriber.
        for _ in 0..<1_000 {
            let url = endpoints.transactionHistory(transactionID, revision: read.revision, environment: environment)
            let body: [UInt8]
            switch await call(url, environment) {
            case .outcome(let outcome): return .failure(HistoryFailure(outcome))
            case .notFound:
                return .failure(HistoryFailure(failed("the transaction history of \(transactionID) was not found (4040010) although its status was", environment, retryable: true)))
            case .body(let bytes): body = bytes
            }
            let page: ServerAPIWire.HistoryResponse
            do {
                page = try ServerAPIWire.HistoryResponse.scan(body)
            } catch {
                return .failure(HistoryFailure(failed("a transaction history page was not the expected JSON", environment, retryable: true)))
            }
            if let problem = items.answerProblem(bundleID: page.bundleId, environment: page.environment,
                                           appAppleID: page.appAppleId, askedAt: environment) {
                return .failure(HistoryFailure(failed(problem, environment)))
            }
            for signed in page.signedTransactions ?? [] {
                do {
                    read.transactions.append(try await verifiedTransaction(signed, askedAt: environment).appleTransaction)
                } catch {
                    return .failure(HistoryFailure(failed("transaction history: " + error.message, environment)))
                }
            }
            if let revision = page.revision { read.revision = revision }
            guard page.hasMore == true, page.revision != nil else { return .success(read) }
        }
        return .failure(HistoryFailure(failed("the transaction history did not end after 1,000 pages", environment)))
    }

    private struct HistoryFailure: Error {
        var outcome: VerificationOutcome
        init(_ outcome: VerificationOutcome) { self.outcome = outcome }
    }

    // MARK: - Trust

    private typealias TrustProblem = SignedItemVerifier.Problem

    private var items: SignedItemVerifier {
        SignedItemVerifier(verifier: verifier, bundleID: bundleID, appAppleID: appAppleID)
    }

    private func verifiedTransaction(_ jws: String, askedAt environment: ReceiptEnvironment) async throws(TrustProblem)
        -> SignedTransactionPayload
    {
        let transaction = try await items.transaction(jws, environment: environment)
        transaction.logMoneyProblems(logger)
        return transaction
    }

    private func verifiedRenewal(
        _ jws: String, of transaction: SignedTransactionPayload, askedAt environment: ReceiptEnvironment
    ) async throws(TrustProblem) -> SignedRenewalPayload {
        try await items.renewal(jws, of: transaction, environment: environment)
    }

    // MARK: - HTTP

    private enum Call {
        case body([UInt8])
        case notFound
        case outcome(VerificationOutcome)
    }

    /// One GET, with what Apple's refusal means for a receipt (Apple's "Error codes" page).
    private func call(_ url: String, _ environment: ReceiptEnvironment) async -> Call {
        switch await connection.send("GET", url) {
        case .success(let body):
            return .body(body)
        case .failure(.noToken):
            return .outcome(.stopRun(.apiKeyRejected(environment: environment)))
        case .failure(.stopping):
            return .outcome(.failed(VerificationFailure(environment: environment, message: "the run is stopping; not asked")))
        case .failure(.transport(let error)):
            return .outcome(
                .failed(VerificationFailure(environment: environment, message: error.description, isRetryable: error.isTransient)))
        case .failure(.refused(let status, let code, let retryAfter)):
            switch (status, code) {
            case (401, _):
                return .outcome(.stopRun(.apiKeyRejected(environment: environment)))
            case (404, .transactionIDNotFound?), (404, .originalTransactionIDNotFound?):
                return .notFound
            case (404, .appNotFound?):
                return .outcome(.stopRun(.appNotFound(environment: environment)))
            case (404, .accountNotFound?):
                return .outcome(.accountGone(appleStatus: AccountGone.serverAPIStatus, environment: environment))
            case (400, .invalidTransactionID?):
                return .outcome(
                    .invalid(appleStatus: ServerAPIErrorCode.invalidTransactionID.rawValue, environment: environment,
                             message: "the App Store Server API calls the transaction id malformed (4000006)"))
            case (429, _):
                return .outcome(.failed(VerificationFailure(
                    appleStatus: code?.rawValue ?? 429, environment: environment,
                    message: "the App Store Server API answered 429 (rate limit); the run slowed down", isRetryable: true,
                    retryAfter: retryAfter)))
            default:
                let retryable = RetryPolicy.isTransient(status: status, code: code)
                return .outcome(.failed(VerificationFailure(
                    appleStatus: code?.rawValue ?? status, environment: environment,
                    message: "HTTP \(status)\(code.map { " (\($0))" } ?? "") from the App Store Server API at \(url)",
                    isRetryable: retryable)))
            }
        }
    }

    private func failed(_ message: String, _ environment: ReceiptEnvironment, retryable: Bool = false) -> VerificationOutcome {
        .failed(VerificationFailure(environment: environment, message: message, isRetryable: retryable))
    }
}

/// A signed payload read with the one-pass scanner.
package protocol ScannedPayload {
    static func scan(_ bytes: [UInt8]) throws(ServerAPIScanning.Malformed) -> Self
}

extension SignedTransactionPayload: ScannedPayload {}
extension SignedRenewalPayload: ScannedPayload {}
