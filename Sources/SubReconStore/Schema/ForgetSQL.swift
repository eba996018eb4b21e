import SubReconModel

/// `subrecon forget USER_ID`: every statement that removes a user, in order, each with its
/// parameters (`user` the user ID, `pseudonym` the ledger's new name for them). Both stores run
/// them in one transaction and count the rows each touched.
package enum ForgetSQL {
    package enum Step: CaseIterable, Sendable {
        case sharedLedger, ledger, subscriptionChanges, runItems, notificationLinks, notificationTokens, runs, subscriptions,
            receiptVersions, receipts, tokens, events, eventStreams
    }

    package static func statement(_ step: Step) -> (sql: String, pseudonymFirst: Bool) {
        switch step {
        // A period another user holds too (a purchase both claimed) stays once, under them: kept
        // under a pseudonym as well, the ledger would hold it twice.
        case .sharedLedger: ("""
            DELETE FROM renewals WHERE user_id = ? AND EXISTS (
                SELECT 1 FROM renewals o
                WHERE o.original_transaction_id = renewals.original_transaction_id
                  AND o.period_key = renewals.period_key AND o.user_id <> renewals.user_id)
            """, false)
        // The money stays, so closed months do not move; the app the periods belonged to is kept
        // with them, as the receipt that named it goes.
        case .ledger: ("""
            UPDATE renewals SET bundle_id = COALESCE(bundle_id, (
                    SELECT r.bundle_id FROM subscriptions s JOIN receipts r ON r.id = s.receipt_id
                    WHERE s.user_id = renewals.user_id AND s.original_transaction_id = renewals.original_transaction_id)),
                user_id = ?
            WHERE user_id = ?
            """, true)
        case .subscriptionChanges: ("DELETE FROM subscription_changes WHERE user_id = ?", false)
        case .runItems: ("DELETE FROM run_items WHERE user_id = ?", false)
        case .notificationLinks: ("UPDATE notifications SET user_id = NULL, receipt_id = NULL WHERE user_id = ?", false)
        // An unmatched notification carrying one of the user's tokens keeps no trace of it.
        case .notificationTokens: ("""
            UPDATE notifications SET app_account_token = NULL
            WHERE app_account_token IN (SELECT app_account_token FROM app_account_tokens WHERE user_id = ?)
            """, false)
        case .runs: ("UPDATE runs SET target_user_id = NULL WHERE target_user_id = ?", false)
        case .subscriptions: ("DELETE FROM subscriptions WHERE user_id = ?", false)
        case .receiptVersions: ("DELETE FROM receipt_versions WHERE user_id = ?", false)
        case .receipts: ("DELETE FROM receipts WHERE user_id = ?", false)
        case .tokens: ("DELETE FROM app_account_tokens WHERE user_id = ?", false)
        // Pending ones too: never sent. An earlier forget's own event stays until delivered.
        case .events: ("DELETE FROM events WHERE user_id = ? AND type <> 'user.forgotten'", false)
        case .eventStreams: ("DELETE FROM event_streams WHERE user_id = ?", false)
        }
    }

    /// Adds the rows one step touched to the summary.
    package static func count(_ rows: Int, of step: Step, into summary: inout ForgetSummary) {
        switch step {
        case .sharedLedger: summary.ledgerPeriodsHeldByOthers += rows
        case .ledger: summary.ledgerPeriods += rows
        case .subscriptionChanges: summary.subscriptionChanges += rows
        case .runItems: summary.runItems += rows
        case .notificationLinks: summary.notificationLinks += rows
        case .runs: summary.runs += rows
        case .subscriptions: summary.subscriptions += rows
        case .receiptVersions, .notificationTokens: break
        case .receipts: summary.receipts += rows
        case .tokens: summary.tokens += rows
        case .events: summary.events += rows
        case .eventStreams: break
        }
    }

    /// The apps of the user's receipts ('' for receipts naming none), read before they go: one
    /// `user.forgotten` event each.
    package static let userApps = "SELECT DISTINCT COALESCE(bundle_id, '') AS app FROM receipts WHERE user_id = ? ORDER BY app"

    /// The `user.forgotten` events for `apps` (as `userApps` reads them).
    package static func forgottenEvents(userID: String, apps: [String], defaultApp: String?, nowMs: Int64) -> EventBatch {
        var batch = EventBatch()
        for app in apps {
            batch.append(
                EventDraft.userForgotten(
                    userID: userID, app: app.isEmpty ? defaultApp : app, id: EventID.make(), createdAtMs: nowMs))
        }
        return batch
    }
}
