import SubReconModel

/// Prints one line per receipt of a dry run, as it arrives.
struct DryRunPrinter: RunObserver {
    let output: CommandOutput

    func receiptFinished(_ update: ReceiptUpdate) { output.out(Self.describe(update)) }

    /// `would update receipt 12 (user u1): updated, expired → active until …, 1 new renewal record(s)`
    static func describe(_ update: ReceiptUpdate) -> String {
        let item = update.runItem
        var line = "would \(item.outcome == .updated ? "update" : "leave") receipt \(item.receiptID) (user \(item.userID)): \(item.outcome.rawValue)"
        if item.oldStatus != item.newStatus || item.oldExpiresDateMs != item.newExpiresDateMs {
            line += ", \(item.oldStatus?.rawValue ?? "none") → \(item.newStatus?.rawValue ?? "none")"
            if let expires = item.newExpiresDateMs { line += " until \(ISO8601.string(fromMilliseconds: expires))" }
        }
        if !update.newRenewals.isEmpty { line += ", \(update.newRenewals.count) new renewal record(s)" }
        if let message = item.message { line += " — \(message)" }
        return line + "\n"
    }
}
