import Logging
import SubReconModel
import SubReconStore

/// After a run: a purchase Apple's answers showed on one user's receipt, whose `appAccountToken`
/// another user registered (the app server handed that user the token before the purchase), is
/// that user's as well. It is stored for them as a receipt known by its transaction id and they
/// are reconciled at once, as `subrecon link` does; the receipt's user keeps it too (their
/// receipt holds it), so `report shared` shows both. Only for apps asked through the App Store
/// Server API: a receipt known by its transaction id has no verifyReceipt data.
struct TokenHolderLinker {
    let job: LiveWiring
    let logger: Logger

    struct Outcome: Sendable, Equatable {
        /// Purchases stored for the user their token names.
        var purchases = 0
        /// Those users, each reconciled once.
        var users: [String] = []
        /// Purchases left alone because their app is asked through verifyReceipt.
        var skippedVerifyReceipt = 0
    }

    /// Links what run `runID` found; a failure to reconcile one user is logged and the others go on.
    func link(afterRun runID: Int64) async throws -> Outcome {
        let store = job.store
        let found = try await store.withReadSnapshot { db in try await db.tokenHeldPurchases(ofRun: runID) }
        var outcome = Outcome()
        var rows: [ImportRow] = []
        var apps: [String: AppSettings] = [:]
        for purchase in found {
            guard let app = job.settings.selectedApps.first(where: { purchase.bundleID == nil || $0.bundleID == purchase.bundleID }),
                app.serverAPI != nil
            else {
                outcome.skippedVerifyReceipt += 1
                continue
            }
            rows.append(ImportRow(
                line: rows.count, userID: purchase.userID, receiptData: "", transactionID: purchase.originalTransactionID,
                bundleID: purchase.bundleID))
            if apps[purchase.userID] == nil { apps[purchase.userID] = app }
        }
        guard !rows.isEmpty else { return outcome }
        _ = try await store.importReceipts(rows, nowMs: job.clock())
        outcome.purchases = rows.count
        for user in apps.keys.sorted() {
            do {
                let summary = try await job.reconcile(user: user, app: apps[user], eventSource: .tokenLink)
                logger.info(
                    "a purchase was linked to its user by the app account token", metadata: ["run.id": "\(summary.runID ?? 0)"])
            } catch {
                logger.warning("a purchase linked by its app account token was not reconciled yet: \(error)")
            }
            outcome.users.append(user)
        }
        return outcome
    }
}
