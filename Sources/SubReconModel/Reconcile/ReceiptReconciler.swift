/// Turns one receipt's verification outcome and what we stored into the writes for that receipt.
/// Pure: no I/O, no clock; the same inputs always give the same update.
///
/// The rule that protects customers: nothing but a definitive, sensible answer changes a
/// subscription. A failed verification changes nothing; an answer whose newest expiry is older
/// than the one we stored, a Sandbox answer about a Production subscription, or a status-0 answer
/// without the subscriptions this receipt had, keeps the stored state and flags it.
public struct ReceiptReconciler: Sendable {
    public var products: Set<String>
    public var duePolicy: DuePolicy

    public init(products: Set<String> = [], duePolicy: DuePolicy = .standard) {
        self.products = products
        self.duePolicy = duePolicy
    }

    public func reconcile(
        _ outcome: VerificationOutcome, snapshot: ReceiptSnapshot, nowMs: Int64, runID: Int64?
    ) -> ReceiptUpdate {
        switch outcome {
        case .answered(let account):
            return reconcileAnswer(account, snapshot: snapshot, nowMs: nowMs, runID: runID)
        case .invalid(let status, let environment, let message):
            return rejection(
                .invalid, state: "invalid", appleStatus: status, environment: environment, snapshot: snapshot,
                nowMs: nowMs, message: message)
        case .accountGone(let appleStatus, let environment):
            return rejection(
                .accountGone, state: "account_gone", appleStatus: appleStatus, environment: environment, snapshot: snapshot,
                nowMs: nowMs, message: AccountGone.message(appleStatus: appleStatus))
        case .failed(let failure):
            let headline = headline(of: snapshot.subscriptionsOfThisReceipt)
            return ReceiptUpdate(
                receiptID: snapshot.receipt.id, userID: snapshot.receipt.userID, subscriptions: [], newRenewals: [],
                renewalCancellations: [],
                receipt: ReceiptChange(
                    newReceiptData: nil, environment: nil, nextDueAt: duePolicy.nextDueAfterFailure(nowMs: nowMs),
                    verificationState: "failed", attemptedAt: nowMs, appleStatus: failure.appleStatus, verifiedAt: nil,
                    consecutiveFailures: snapshot.consecutiveFailures + 1, message: failure.message),
                runItem: runItem(
                    snapshot, .failed, nowMs: nowMs, appleStatus: failure.appleStatus, environment: failure.environment,
                    old: headline, new: headline, message: failure.message))
        case .stopRun(let problem):
            let headline = headline(of: snapshot.subscriptionsOfThisReceipt)
            return ReceiptUpdate(
                receiptID: snapshot.receipt.id, userID: snapshot.receipt.userID, subscriptions: [], newRenewals: [],
                renewalCancellations: [], receipt: nil,
                runItem: runItem(
                    snapshot, .skipped, nowMs: nowMs, appleStatus: problem.appleStatus, environment: nil, old: headline,
                    new: headline, message: "not verified: the run stopped"))
        }
    }

    private func reconcileAnswer(
        _ account: AppleAccount, snapshot: ReceiptSnapshot, nowMs: Int64, runID: Int64?
    ) -> ReceiptUpdate {
        let receipt = snapshot.receipt
        let environment = account.environment
        let derived = SubscriptionStateDerivation.derive(
            transactions: account.transactions, pendingRenewals: account.renewals, nowMs: nowMs,
            products: products)
        var flags: [String] = []
        var writes: [StoredSubscription] = []
        var changed = false
        var keptOTIDs: Set<String> = []

        let hadSubscriptions = snapshot.subscriptionsOfThisReceipt
        if derived.states.isEmpty, derived.undetermined.isEmpty, !hadSubscriptions.isEmpty {
            flags.append(
                "Apple answered status 0 without the \(hadSubscriptions.count) subscription(s) this receipt had; kept them as they were")
            for var stored in hadSubscriptions {
                stored.flag = flags.last
                writes.append(stored)
            }
        }

        // Grouped once: an answer with thousands of subscriptions must not cost thousands of scans.
        let periodsByOTID = Dictionary(grouping: derived.periods) { $0.originalTransactionID ?? "" }
        let asOf = account.asOfMs ?? nowMs
        var stale: [String] = []
        for state in derived.states {
            let stored = snapshot.subscriptions[state.originalTransactionID]
            let entries = periodsByOTID[state.originalTransactionID] ?? []
            // Newer data is stored (a notification signed after this run asked, or a notification
            // older than the last check): never roll it back. Its periods are still recorded.
            if let stored, stored.lastVerifiedAt > asOf {
                stale.append(state.originalTransactionID)
                continue
            }
            if let stored, let reason = reasonToKeep(stored, newState: state, entries: entries, environment: environment) {
                flags.append(reason)
                keptOTIDs.insert(state.originalTransactionID)
                var kept = stored
                kept.flag = reason
                writes.append(kept)
                continue
            }
            var row = StoredSubscription(
                state, userID: receipt.userID, receiptID: receipt.id, environment: environment, lastVerifiedAt: asOf,
                firstSeenAt: stored?.firstSeenAt ?? nowMs, updatedAt: nowMs)
            // A single event (a notification) does not say what the newest transaction is.
            if account.isSingleEvent { row.latestTransactionID = stored?.latestTransactionID }
            if let stored, stored.hasSameReportedState(as: row) {
                row.updatedAt = stored.updatedAt
            } else {
                changed = true
            }
            writes.append(row)
        }
        for otid in derived.undetermined {
            let reason = "every transaction of \(otid) is cancelled by an upgrade and its replacement is missing from Apple's answer; kept the stored state"
            flags.append(reason)
            keptOTIDs.insert(otid)
            if var stored = snapshot.subscriptions[otid] {
                stored.flag = reason
                writes.append(stored)
            }
        }

        var newRenewals: [RenewalRecord] = []
        var cancellations: [RenewalCancellation] = []
        var revisions: [RenewalRecord] = []
        var seenKeys: Set<String> = []
        for period in derived.periods {
            guard let otid = period.originalTransactionID, !keptOTIDs.contains(otid),
                let key = period.periodKey, let transactionID = period.transactionID,
                let expires = period.expiresDateMs, seenKeys.insert(key).inserted
            else { continue }
            if let stored = snapshot.renewals[key] {
                if period.money != nil {
                    // Signed data: its ledger replaces the stored one unless that is newer.
                    var revised = stored
                    revised.takeLedger(of: period, environment: environment)
                    if !stored.hasNewerLedger(than: revised), !revised.hasSameLedger(as: stored) {
                        revisions.append(revised)
                    }
                } else if stored.cancellationDateMs == nil, let cancelled = period.cancellationDateMs {
                    var revised = stored
                    revised.cancellationDateMs = cancelled
                    revised.isUpgraded = stored.isUpgraded || period.isUpgraded
                    revised.refundMilliunits = RefundAmount.milliunits(
                        priceMilliunits: revised.priceMilliunits, currency: revised.currency, cancellationDateMs: cancelled,
                        isUpgraded: revised.isUpgraded, revocationType: revised.revocationType,
                        revocationPercentage: revised.revocationPercentage)
                    cancellations.append(
                        RenewalCancellation(
                            periodKey: key, cancellationDateMs: cancelled, refundMilliunits: revised.refundMilliunits))
                }
                continue
            }
            var record = RenewalRecord(
                userID: receipt.userID, periodKey: key, transactionID: transactionID, originalTransactionID: otid,
                webOrderLineItemID: period.webOrderLineItemID, productID: period.productID ?? "",
                purchaseDateMs: period.purchaseDateMs, expiresDateMs: expires,
                cancellationDateMs: period.cancellationDateMs, isTrialPeriod: period.isTrialPeriod ?? false,
                isInIntroOfferPeriod: period.isInIntroOfferPeriod ?? false, receiptID: receipt.id,
                firstSeenRunID: runID, firstSeenAt: nowMs)
            record.takeLedger(of: period, environment: environment)
            newRenewals.append(record)
        }
        if !newRenewals.isEmpty || !cancellations.isEmpty || !revisions.isEmpty { changed = true }

        // The receipt's subscriptions after this update, for the due policy and the run item.
        var after: [String: StoredSubscription] = [:]
        for stored in hadSubscriptions { after[stored.originalTransactionID] = stored }
        for row in writes where row.receiptID == receipt.id || after[row.originalTransactionID] == nil {
            after[row.originalTransactionID] = row
        }
        let headlineAfter = headline(of: Array(after.values))
        let headlineBefore = headlineAfter.flatMap { snapshot.subscriptions[$0.originalTransactionID] }

        // Kept (flagged) rows carry the stored reported state, so they yield no change.
        var changes = writes.compactMap { row in
            SubscriptionChange(old: snapshot.subscriptions[row.originalTransactionID], new: row, recordedAt: nowMs)
        }
        if changes.contains(where: { EventType(change: $0.kind).carriesPeriod }) {
            let periods = Self.periodsAfter(snapshot: snapshot, new: newRenewals, cancellations: cancellations, revisions: revisions)
            for index in changes.indices { changes[index].period = changes[index].governingPeriod(among: periods) }
        }

        let flagged = !flags.isEmpty
        let message = flagged ? flags.joined(separator: "; ") : nil
        let newReceiptData = flagged ? nil : account.replacementReceipt.flatMap { $0 == receipt.receiptData ? nil : $0 }
        return ReceiptUpdate(
            receiptID: receipt.id, userID: receipt.userID, subscriptions: writes, newRenewals: newRenewals,
            renewalCancellations: cancellations,
            receipt: ReceiptChange(
                newReceiptData: newReceiptData, environment: environment,
                nextDueAt: duePolicy.nextDue(
                    receiptID: receipt.id, subscriptions: Array(after.values), flagged: flagged, nowMs: nowMs),
                verificationState: flagged ? "flagged" : "verified", attemptedAt: nowMs, appleStatus: account.appleStatus,
                verifiedAt: nowMs, consecutiveFailures: 0, message: message,
                historyRevision: flagged ? nil : account.historyRevision),
            runItem: runItem(
                snapshot, changed ? .updated : .unchanged, nowMs: nowMs, appleStatus: account.appleStatus, environment: environment,
                old: headlineBefore, new: headlineAfter, message: message),
            subscriptionChanges: changes, staleSubscriptions: stale, renewalRevisions: revisions)
    }

    /// The periods as they stand after the update: the stored ones with their cancellations and
    /// revisions applied, then the new ones.
    private static func periodsAfter(
        snapshot: ReceiptSnapshot, new: [RenewalRecord], cancellations: [RenewalCancellation], revisions: [RenewalRecord]
    ) -> [RenewalRecord] {
        var stored = snapshot.renewals
        for c in cancellations {
            stored[c.periodKey]?.cancellationDateMs = c.cancellationDateMs
            stored[c.periodKey]?.refundMilliunits = c.refundMilliunits
        }
        for r in revisions { stored[r.periodKey] = r }
        return Array(stored.values) + new
    }

    /// Why an answer must not replace a stored subscription, or nil when it may.
    /// An earlier expiry than the stored one is accepted only when the answer itself shows the
    /// stored period was cancelled (an upgrade to a shorter period, or a refund): Apple explained it.
    package func reasonToKeep(
        _ stored: StoredSubscription, newState: SubscriptionState, entries: [AppleTransaction],
        environment: ReceiptEnvironment
    ) -> String? {
        if stored.environment == .production, environment == .sandbox {
            return "a Sandbox answer about Production subscription \(stored.originalTransactionID) was not applied"
        }
        let storedPeriodCancelled = entries.contains { entry in
            entry.cancellationDateMs != nil && (entry.expiresDateMs ?? .min) >= stored.expiresDateMs
        }
        if newState.expiresDateMs < stored.expiresDateMs, !storedPeriodCancelled {
            return "Apple's newest expiry \(newState.expiresDateMs) for \(stored.originalTransactionID) is older than the stored \(stored.expiresDateMs); kept the stored state"
        }
        return nil
    }

    private func rejection(
        _ outcome: RunItemOutcome, state: String, appleStatus: Int?, environment: ReceiptEnvironment?,
        snapshot: ReceiptSnapshot, nowMs: Int64, message: String
    ) -> ReceiptUpdate {
        let headline = headline(of: snapshot.subscriptionsOfThisReceipt)
        return ReceiptUpdate(
            receiptID: snapshot.receipt.id, userID: snapshot.receipt.userID, subscriptions: [], newRenewals: [],
            renewalCancellations: [],
            receipt: ReceiptChange(
                newReceiptData: nil, environment: environment,
                nextDueAt: duePolicy.nextDueAfterDefinitiveRejection(nowMs: nowMs), verificationState: state, attemptedAt: nowMs,
                appleStatus: appleStatus, verifiedAt: nowMs, consecutiveFailures: 0, message: message),
            runItem: runItem(
                snapshot, outcome, nowMs: nowMs, appleStatus: appleStatus, environment: environment, old: headline, new: headline,
                message: message))
    }

    /// The subscription a run item reports for a receipt: the most entitled, then the latest expiry.
    package func headline(of subscriptions: [StoredSubscription]) -> StoredSubscription? {
        subscriptions.min { a, b in
            if a.status != b.status { return a.status < b.status }
            if a.expiresDateMs != b.expiresDateMs { return a.expiresDateMs > b.expiresDateMs }
            return a.originalTransactionID < b.originalTransactionID
        }
    }

    private func runItem(
        _ snapshot: ReceiptSnapshot, _ outcome: RunItemOutcome, nowMs: Int64, appleStatus: Int?, environment: ReceiptEnvironment?,
        old: StoredSubscription?, new: StoredSubscription?, message: String?
    ) -> RunItem {
        RunItem(
            receiptID: snapshot.receipt.id, userID: snapshot.receipt.userID, outcome: outcome, appleStatus: appleStatus,
            environment: environment, oldStatus: old?.status, newStatus: new?.status,
            oldExpiresDateMs: old?.expiresDateMs, newExpiresDateMs: new?.expiresDateMs, message: message,
            recordedAt: nowMs)
    }
}
