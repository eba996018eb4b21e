
/// What a `report apple-parity` key counts: billed periods, full refunds, or partial refunds.
public enum SalesParityKind: String, Sendable, Hashable, CaseIterable {
    case billed
    /// Apple's negative units; the ledger's refunds other than `REFUND_PRORATED`.
    case refund
    /// Apple's zero-unit rows with a negative price; the ledger's `REFUND_PRORATED`.
    case partialRefund = "partial_refund"
}
