import Foundation
import AppleSignedData
import SubReconAppStore
import SubReconHTTP
import SubReconModel
import SubReconStore

extension CommandContext {
    /// What `subrecon link` did.
    public struct LinkResult: Sendable {
        public var originalTransactionID: String
        public var bundleID: String?
        public var environment: ReceiptEnvironment
        /// The token Apple now has on the purchase.
        public var token: String
        /// The token was new (the user had none stored).
        public var newToken: Bool
        /// The reconciliation of the user that followed.
        public var summary: RunSummary
    }

    /// `subrecon link USER_ID TRANSACTION_ID`: for a purchase made without a token, asks Apple to
    /// set the user's stored token (or a new one, then stored as theirs) on it through Set App
    /// Account Token, records the link (the token, and the purchase as the user's), and
    /// reconciles that user. An unknown user is a configuration error (exit 2), before Apple is
    /// asked; Apple's refusal is shown as Apple's error (exit 1) and changes nothing.
    public func link(userID: String, transactionID: String, flags: Settings.Flags) async throws -> LinkResult {
        guard !transactionID.isEmpty, transactionID.utf8.count <= 32, transactionID.utf8.allSatisfy({ (48...57).contains($0) })
        else {
            throw ConfigurationError.other(
                "TRANSACTION_ID must be Apple's transaction id (up to 32 digits), not \"\(transactionID.prefix(40))\"")
        }
        let job = try await liveWiring(flags)
        let store = job.store
        let (stored, storedToken, target, ownership) = try await store.withReadSnapshot { db in
            let row = try await db.all(IdentitySQL.user, [.text(userID), .text(userID), .text(userID)]) { row in
                (try row.integer("stored") ?? 0, try row.text("token"))
            }.first
            let target = try await db.all(
                IdentitySQL.transaction, [.text(transactionID), .text(transactionID), .text(transactionID), .text(transactionID)]
            ) { row in (try row.requiredText("original_transaction_id"), try row.text("bundle_id")) }.first
            let ownership = try await db.all(IdentitySQL.ownership, [.text(target?.0 ?? transactionID)]) { row in
                try row.text("ownership_type")
            }.first ?? nil
            return (row?.0 ?? 0, row?.1, target, ownership)
        }
        guard stored > 0 else { throw ConfigurationError.unknownUser(userID) }
        // Apple refuses these (API 1.16 and 1.22): said at once, without asking it.
        if let refusal = Self.linkRefusal(ownership: ownership) { throw LinkFailure.apple(refusal) }
        let originalTransactionID = target?.0 ?? transactionID
        // The app the stored data names, else every app asked through the Server API in turn.
        let candidates = job.settings.selectedApps.filter { app in
            app.serverAPI != nil && (target?.1 == nil || app.bundleID == target?.1)
        }
        guard !candidates.isEmpty else {
            throw ConfigurationError.other(
                "link asks the App Store Server API: configure it for the app (SUBRECON_APPLE_API=server-api, or the app's apple_api)")
        }
        let token = storedToken ?? UUID().uuidString.lowercased()
        let transport = CurlTransport(maxConnections: 1, maxResponseBytes: job.settings.maxResponseBytes, caFile: job.settings.caFile)
        defer { transport.shutdown() }
        var failure: AppAccountTokenSetter.Failure?
        for app in candidates {
            guard let serverAPI = app.serverAPI else { continue }
            let setter = AppAccountTokenSetter(
                connection: ServerAPIConnection(
                    transport: transport, endpoints: serverAPI.endpoints,
                    tokens: BearerTokenProvider(key: serverAPI.key, clock: { LiveWiring.wallClockMs() }),
                    limiter: job.rateLimiter(for: app), requestTimeout: job.settings.requestTimeout,
                    retryPolicy: job.settings.retryPolicy, clockMs: { LiveWiring.wallClockMs() }))
            switch await setter.set(token: token, originalTransactionID: originalTransactionID) {
            case .success(let environment):
                return try await recordLink(
                    job, userID: userID, originalTransactionID: originalTransactionID, app: app, token: token,
                    newToken: storedToken == nil, environment: environment)
            case .failure(let problem):
                failure = problem
                // Another app may know the purchase; any other refusal is final.
                guard case .refused(404, _) = problem else { break }
            }
        }
        throw LinkFailure.apple((failure ?? .unavailable("no app was asked")).description)
    }

    /// Why Apple would refuse to set a token on a purchase held this way; nil when it would not.
    static func linkRefusal(ownership: String?) -> String? {
        switch ownership {
        case "FAMILY_SHARED":
            "the purchase is shared through Family Sharing: Apple sets no app account token on it "
                + "(4000185, FamilyTransactionNotSupportedError); Apple was not asked"
        case "ASSIGNED":
            "the purchase was assigned by an organization: Apple sets no app account token on it "
                + "(4000227, InvalidAssignedTransactionNotSupportedError); Apple was not asked"
        default: nil
        }
    }

    /// The token stored as the user's, the purchase stored as theirs (a receipt known by its
    /// transaction id, unless one of theirs knows it already), then the user reconciled.
    private func recordLink(
        _ job: LiveWiring, userID: String, originalTransactionID: String, app: AppSettings, token: String, newToken: Bool,
        environment: ReceiptEnvironment
    ) async throws -> LinkResult {
        let store = job.store
        let holds = try await store.withReadSnapshot { db in
            try await db.integer(IdentitySQL.userHolds, [.text(userID), .text(originalTransactionID)]) ?? 0
        }
        let row = ImportRow(
            line: 0, userID: userID, receiptData: "", transactionID: holds > 0 ? nil : originalTransactionID,
            bundleID: app.bundleID, appAccountToken: token)
        do {
            _ = try await store.importReceipts([row], nowMs: clock())
        } catch {
            throw LinkFailure.store(error)
        }
        let summary = try await job.reconcile(user: userID, app: app)
        return LinkResult(
            originalTransactionID: originalTransactionID, bundleID: app.bundleID, environment: environment, token: token,
            newToken: newToken, summary: summary)
    }
}

/// Why `link` changed nothing.
public enum LinkFailure: OperatorFacingError {
    /// Apple refused or did not answer (Apple's error, as a sentence): exit 1.
    case apple(String)
    /// Apple set the token but the store failed to record it: exit 74 (a second `link` records it).
    case store(StoreError)

    public var exitStatus: ExitStatus {
        switch self {
        case .apple: .incomplete
        case .store: .databaseFailed
        }
    }

    public var description: String {
        switch self {
        case .apple(let failure): "\(failure); nothing was changed"
        case .store(let error): "Apple has the token, but it was not recorded: \(error); run link again"
        }
    }
}
