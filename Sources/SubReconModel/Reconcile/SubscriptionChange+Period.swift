extension SubscriptionChange {
    /// The billed period an event of this change names, among the subscription's periods as they
    /// stand after the write (`records`: new ones, and stored ones with their cancellation filled
    /// in): for `new` and `renewed` the governing transaction (the newest one the row reports), for
    /// `refunded` the revoked one. nil for other kinds, or when no recorded period matches.
    public func governingPeriod(among records: [RenewalRecord]) -> RenewalRecord? {
        let own = records.filter { $0.originalTransactionID == originalTransactionID && $0.userID == userID }
        switch kind {
        case .new, .renewed:
            if let latest = after.latestTransactionID, let match = own.first(where: { $0.transactionID == latest }) {
                return match
            }
            return own.filter { $0.expiresDateMs == after.expiresDateMs }.max(by: Self.earlier)
        case .refunded:
            let revoked = own.filter { $0.cancellationDateMs != nil }
            if let latest = after.latestTransactionID, let match = revoked.first(where: { $0.transactionID == latest }) {
                return match
            }
            return revoked.max(by: Self.earlier)
        default:
            return nil
        }
    }

    /// Orders periods by expiry, then purchase, then transaction ID: the last is the newest.
    private static func earlier(_ a: RenewalRecord, _ b: RenewalRecord) -> Bool {
        if a.expiresDateMs != b.expiresDateMs { return a.expiresDateMs < b.expiresDateMs }
        if (a.purchaseDateMs ?? 0) != (b.purchaseDateMs ?? 0) { return (a.purchaseDateMs ?? 0) < (b.purchaseDateMs ?? 0) }
        return a.transactionID < b.transactionID
    }
}
