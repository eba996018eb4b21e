import SubReconModel

/// How a batch moves its run's counters (once per batch, in the batch's transaction, so they
/// always agree with its run items).
package struct RunCounters {
    package var verified = 0, updated = 0, unchanged = 0, invalid = 0, accountGone = 0, failed = 0, skipped = 0

    /// One count per outcome, as the run's summary line splits them; `verified` is every
    /// definitive answer (updated, unchanged, invalid, account_gone).
    package init(_ updates: [ReceiptUpdate]) {
        for update in updates {
            switch update.runItem.outcome {
            case .updated: verified += 1; updated += 1
            case .unchanged: verified += 1; unchanged += 1
            case .invalid: verified += 1; invalid += 1
            case .accountGone: verified += 1; accountGone += 1
            case .failed: failed += 1
            case .skipped: skipped += 1
            }
        }
    }

    package static let sql = """
        UPDATE runs SET verified = verified + ?, updated = updated + ?, unchanged = unchanged + ?,
            invalid = invalid + ?, account_gone = account_gone + ?, failed = failed + ?, skipped = skipped + ?
        WHERE id = ?
        """

    package func arguments(runID: Int64) -> [SQLArgument] {
        [verified, updated, unchanged, invalid, accountGone, failed, skipped].map { .integer(Int64($0)) } + [.integer(runID)]
    }
}
