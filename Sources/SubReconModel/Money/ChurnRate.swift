/// `churned ÷ active_paid at the previous end` as text with four decimals (`0.0417`), halves to
/// even, by integer arithmetic.
package enum ChurnRate {
    /// nil (an empty cell) when `activePaidBefore` is 0: no rate of nothing.
    package static func text(churned: Int64, activePaidBefore: Int64) -> String? {
        guard activePaidBefore > 0, churned >= 0 else { return nil }
        // In ten-thousandths; exact even for counts near Int64.max.
        let tenThousandths = HalfEven.divide(WideInteger(churned, times: 10_000), by: activePaidBefore)
        return MoneyText.decimal(tenThousandths, digits: 4)
    }
}
