/// What the simulated app charges, per product and currency, in milliunits (thousandths of the
/// currency unit, as Apple's signed `price`: 9990 = 9.99, and 1,500,000 = 1500 yen). Prices are
/// the price points a developer would pick in App Store Connect, not converted from one another,
/// and JPY prices are whole yen.
public enum SimulatedPriceTable {
    /// The regular price of one period of `productID` in `currency`. USD prices are the ones the
    /// simulator always rendered, so USD answers did not change when currencies came in.
    public static func priceMilliunits(of productID: String, currency: String) -> Int64 {
        let row = regularPrices[productID] ?? regularPrices[SimulatedProducts.proMonthly]!
        return row[currency] ?? row["USD"]!
    }

    /// The one-off price of a pay-up-front introductory offer on `productID` (see
    /// `SimulatedSubscription.payUpFrontIntroPeriodMs`): three months for about half price.
    public static func introPriceMilliunits(of productID: String, currency: String) -> Int64 {
        let row = introPrices[productID] ?? introPrices[SimulatedProducts.proMonthly]!
        return row[currency] ?? row["USD"]!
    }

    /// Product → currency → milliunits. A product outside the catalogue costs what pro monthly does.
    private static let regularPrices: [String: [String: Int64]] = [
        SimulatedProducts.proWeekly: ["USD": 2_990, "EUR": 2_990, "GBP": 2_490, "JPY": 450_000],
        SimulatedProducts.proMonthly: ["USD": 9_990, "EUR": 9_990, "GBP": 8_990, "JPY": 1_500_000],
        SimulatedProducts.proYearly: ["USD": 99_990, "EUR": 99_990, "GBP": 89_990, "JPY": 15_000_000],
        SimulatedProducts.premiumMonthly: ["USD": 14_990, "EUR": 14_990, "GBP": 12_990, "JPY": 2_200_000],
        SimulatedProducts.newsMonthly: ["USD": 4_990, "EUR": 4_990, "GBP": 4_490, "JPY": 700_000],
        // The consumable: only Get Transaction Info and Look Up Order ID show its price.
        SimulatedProducts.coins100: ["USD": 990, "EUR": 990, "GBP": 890, "JPY": 150_000],
    ]

    private static let introPrices: [String: [String: Int64]] = [
        SimulatedProducts.proMonthly: ["USD": 14_990, "EUR": 14_990, "GBP": 12_990, "JPY": 2_200_000],
        SimulatedProducts.premiumMonthly: ["USD": 24_990, "EUR": 24_990, "GBP": 21_990, "JPY": 3_500_000],
        SimulatedProducts.proWeekly: ["USD": 4_990, "EUR": 4_990, "GBP": 3_990, "JPY": 700_000],
        SimulatedProducts.proYearly: ["USD": 49_990, "EUR": 49_990, "GBP": 44_990, "JPY": 7_500_000],
        SimulatedProducts.newsMonthly: ["USD": 6_990, "EUR": 6_990, "GBP": 5_990, "JPY": 1_000_000],
    ]
}
