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
        public var environment: ReceiptEnvironment?
        /// The token Apple now has on the purchase.
        public var token: String
        /// How the token came to be the user's.
        public var tokenSource: TokenSource
        /// The users the purchase was taken from (`--move`), first claimant first.
        public var movedFrom: [String]
        /// The reconciliation of the user that followed.
        public var summary: RunSummary

        public enum TokenSource: Sendable, Equatable {
            /// Apple was asked to set the user's stored token.
            case setStored
            /// Apple was asked to set a new token, now stored as the user's.
            case setNew
            /// The purchase already carried this token at Apple: registered as the user's, Apple
            /// not asked to change it.
            case alreadyAtApple
        }
    }

    /// What is stored about the purchase and the user, read in one snapshot.
    private struct LinkFacts: Sendable {
        var userStored: Int64
        var userToken: String?
        var originalTransactionID: String
        var bundleID: String?
        var ownership: String?
        /// Other users holding the purchase, first claimant first, and whether an app receipt's
        /// data is what ties them to it.
        var holders: [(user: String, byReceiptData: Bool)]
        /// The token Apple's signed data gave the purchase, as stored.
        var storedPurchaseToken: String?
    }

    /// `subrecon link USER_ID TRANSACTION_ID [--move]`: ties a purchase to its user. A purchase
    /// another user holds is refused (exit 2, naming them; nothing changed, Apple not asked)
    /// unless `move`, which takes it from them. A purchase whose signed data already carries an
    /// `appAccountToken` keeps it: the token is registered as the user's (refused likewise when
    /// another user registered it) and Apple is not asked to change it. Only a purchase without a
    /// token gets one through Set App Account Token: the user's stored token, or a new one then
    /// stored as theirs. Then the link is recorded and the user reconciled. An unknown user is a
    /// configuration error (exit 2), before Apple is asked; Apple's refusal is shown as Apple's
    /// error (exit 1) and changes nothing.
    public func link(userID: String, transactionID: String, move: Bool = false, flags: Settings.Flags) async throws
        -> LinkResult
    {
        guard !transactionID.isEmpty, transactionID.utf8.count <= 32, transactionID.utf8.allSatisfy({ (48...57).contains($0) })
        else {
            throw ConfigurationError.other(
                "TRANSACTION_ID must be Apple's transaction id (up to 32 digits), not \"\(transactionID.prefix(40))\"")
        }
        let job = try await liveWiring(flags)
        let facts = try await linkFacts(job.store, userID: userID, transactionID: transactionID)
        guard facts.userStored > 0 else { throw ConfigurationError.unknownUser(userID) }
        // Apple refuses these (API 1.16 and 1.22): said at once, without asking it.
        if let refusal = Self.linkRefusal(ownership: facts.ownership) { throw LinkFailure.apple(refusal) }
        let otid = facts.originalTransactionID
        if let holder = facts.holders.first(where: \.byReceiptData) {
            throw LinkFailure.cannotMove(holder: holder.user, originalTransactionID: otid)
        }
        if let holder = facts.holders.first, !move {
            throw LinkFailure.heldByAnotherUser(holder: holder.user, originalTransactionID: otid, token: nil)
        }
        // The app the stored data names, else every app asked through the Server API in turn.
        let candidates = job.settings.selectedApps.filter { app in
            app.serverAPI != nil && (facts.bundleID == nil || app.bundleID == facts.bundleID)
        }
        guard !candidates.isEmpty else {
            throw ConfigurationError.other(
                "link asks the App Store Server API: configure it for the app (SUBRECON_APPLE_API=server-api, or the app's apple_api)")
        }
        let transport = CurlTransport(maxConnections: 1, maxResponseBytes: job.settings.maxResponseBytes, caFile: job.settings.caFile)
        defer { transport.shutdown() }

        // The token Apple already has on the purchase: from its stored signed data, else asked.
        var known: (token: String?, app: AppSettings?, environment: ReceiptEnvironment?) = (facts.storedPurchaseToken, nil, nil)
        if known.token == nil {
            known = try await purchaseTokenAtApple(job, transport: transport, candidates: candidates, otid: otid)
        }
        if let token = known.token {
            let tokenHolder = try await job.store.withReadSnapshot { db in try await db.userRegistering(token: token) }
            if let tokenHolder, tokenHolder != userID, !move {
                throw LinkFailure.heldByAnotherUser(holder: tokenHolder, originalTransactionID: otid, token: token)
            }
            let app = known.app ?? candidates.first(where: { $0.bundleID == facts.bundleID }) ?? candidates[0]
            let moveToken = tokenHolder.map { $0 != userID } ?? false
            return try await recordLink(
                job, userID: userID, originalTransactionID: otid, app: app, token: token, source: .alreadyAtApple,
                environment: known.environment, holders: facts.holders.map(\.user), moveToken: moveToken)
        }

        let token = facts.userToken ?? UUID().uuidString.lowercased()
        var failure: AppAccountTokenSetter.Failure?
        for app in candidates {
            guard let serverAPI = app.serverAPI else { continue }
            let setter = AppAccountTokenSetter(
                connection: serverAPI.connection(transport: transport, limiter: job.rateLimiter(for: app), settings: job.settings))
            switch await setter.set(token: token, originalTransactionID: otid) {
            case .success(let environment):
                return try await recordLink(
                    job, userID: userID, originalTransactionID: otid, app: app, token: token,
                    source: facts.userToken == nil ? .setNew : .setStored, environment: environment,
                    holders: facts.holders.map(\.user), moveToken: false)
            case .failure(let problem):
                failure = problem
                // Another app may know the purchase; any other refusal is final.
                guard case .refused(404, _) = problem else { break }
            }
        }
        throw LinkFailure.apple((failure ?? .unavailable("no app was asked")).description)
    }

    /// The user, the purchase and who else holds it, in one snapshot.
    private func linkFacts(_ store: any SubscriptionStore, userID: String, transactionID: String) async throws -> LinkFacts {
        try await store.withReadSnapshot { db in
            let user = try await db.storedUser(userID)
            let target = try await db.storedTransaction(transactionID)
            let otid = target?.originalTransactionID ?? transactionID
            let ownership = try await db.ownershipType(ofPurchase: otid)
            let holders = try await db.purchaseHolders(otid, transactionID: transactionID, otherThan: userID)
            let storedToken = try await db.storedAppAccountToken(ofPurchase: otid)
            return LinkFacts(
                userStored: user.rows, userToken: user.firstToken, originalTransactionID: otid, bundleID: target?.bundleID,
                ownership: ownership, holders: holders, storedPurchaseToken: storedToken?.lowercased())
        }
    }

    /// The `appAccountToken` Apple's signed data carries on a purchase subrecon has not stored,
    /// asked of each candidate app until one knows it (Get All Subscription Statuses, verified to
    /// Apple's root like every answer). No token: nil, with the app that knows the purchase.
    private func purchaseTokenAtApple(
        _ job: LiveWiring, transport: CurlTransport, candidates: [AppSettings], otid: String
    ) async throws -> (token: String?, app: AppSettings?, environment: ReceiptEnvironment?) {
        for app in candidates {
            let verifier: any ReceiptVerifier
            do {
                verifier = try job.verifier(transport: transport, app: app, api: .serverAPI, limiter: job.rateLimiter(for: app))
            } catch {
                throw ConfigurationError.other(error.description)
            }
            let receipt = ReceiptToVerify(
                id: 0, userID: "", receiptData: "", environment: nil,
                serverAPI: ReceiptToVerify.ServerAPIContext(importedTransactionID: otid))
            switch await verifier.verify(receipt) {
            case .answered(let account):
                let transactions = account.transactions.filter { $0.originalTransactionID == otid }
                let newest = transactions.max { ($0.purchaseDateMs ?? 0) < ($1.purchaseDateMs ?? 0) }
                let token = newest?.appAccountToken
                    ?? account.renewals.first { $0.originalTransactionID == otid && $0.appAccountToken != nil }?.appAccountToken
                return (token?.lowercased(), app, account.environment)
            case .invalid, .accountGone:
                continue  // not this app's purchase
            case .failed(let failure):
                throw LinkFailure.apple("Apple could not be asked which token the purchase carries: \(failure.message)")
            case .stopRun(let problem):
                throw ConfigurationError.other(problem.description)
            }
        }
        return (nil, nil, nil)
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

    /// The purchase taken from its other holders (`--move`), the token stored as the user's, the
    /// purchase stored as theirs (a receipt known by its transaction id, unless one of theirs
    /// knows it already), then the user reconciled.
    private func recordLink(
        _ job: LiveWiring, userID: String, originalTransactionID: String, app: AppSettings, token: String,
        source: LinkResult.TokenSource, environment: ReceiptEnvironment?, holders: [String], moveToken: Bool
    ) async throws -> LinkResult {
        let store = job.store
        do throws(StoreError) {
            if !holders.isEmpty || moveToken {
                _ = try await store.movePurchase(
                    originalTransactionID, from: holders, to: userID, token: moveToken ? token : nil, nowMs: clock())
            }
            try await store.recordLink(
                userID: userID, originalTransactionID: originalTransactionID, bundleID: app.bundleID, token: token,
                nowMs: clock())
        } catch {
            throw LinkFailure.store(error)
        }
        let summary = try await job.reconcile(user: userID, app: app, eventSource: .link)
        return LinkResult(
            originalTransactionID: originalTransactionID, bundleID: app.bundleID, environment: environment, token: token,
            tokenSource: source, movedFrom: holders, summary: summary)
    }
}

/// Why `link` changed nothing.
public enum LinkFailure: OperatorFacingError {
    /// Apple refused or did not answer (Apple's error, as a sentence): exit 1.
    case apple(String)
    /// Apple set the token but the store failed to record it: exit 74 (a second `link` records it).
    case store(StoreError)
    /// Another user holds the purchase (or registered the token it carries at Apple): exit 2,
    /// before Apple is asked to change anything; `--move` takes it.
    case heldByAnotherUser(holder: String, originalTransactionID: String, token: String?)
    /// The holder's own app receipt holds the purchase: moving it would not last. Exit 2, with or
    /// without `--move`.
    case cannotMove(holder: String, originalTransactionID: String)

    public var exitStatus: ExitStatus {
        switch self {
        case .apple: .incomplete
        case .store: .databaseFailed
        case .heldByAnotherUser, .cannotMove: .configuration
        }
    }

    public var description: String {
        switch self {
        case .apple(let failure): "\(failure); nothing was changed"
        case .store(let error): "Apple has the token, but it was not recorded: \(error); run link again"
        case .heldByAnotherUser(let holder, let otid, nil):
            "original transaction \(otid) is held by user \"\(holder)\"; nothing was changed and Apple was not asked "
                + "(link --move takes it from them; report shared lists purchases several users hold)"
        case .heldByAnotherUser(let holder, let otid, let token?):
            "original transaction \(otid) already carries app account token \(token) at Apple, registered by user "
                + "\"\(holder)\"; nothing was changed and Apple was not asked (link --move takes the purchase and the token from them)"
        case .cannotMove(let holder, let otid):
            "original transaction \(otid) is held by user \"\(holder)\" through their app receipt's data, which gives it back "
                + "to them at each check: link cannot take it, not even with --move; nothing was changed and Apple was not asked "
                + "(report shared lists purchases several users hold)"
        }
    }
}
