/// The simulated app's catalogue: bundle id, product ids and subscription groups.
public enum SimulatedProducts {
    /// `receipt.bundle_id` of every simulated receipt.
    public static let bundleID = "com.example.subrecon"

    /// Group A (the subscription subrecon manages), monthly plan.
    public static let proMonthly = "com.example.pro.monthly"
    /// Group A, yearly plan.
    public static let proYearly = "com.example.pro.yearly"
    /// Group A, weekly plan.
    public static let proWeekly = "com.example.pro.weekly"
    /// Group A, higher service level (target of upgrades).
    public static let premiumMonthly = "com.example.premium.monthly"
    /// Group B, an unrelated second subscription.
    public static let newsMonthly = "com.example.news.monthly"
    /// A consumable; appears only in `receipt.in_app`.
    public static let coins100 = "com.example.coins.100"

    /// `subscription_group_identifier` of group A.
    public static let groupA = "21034567"
    /// `subscription_group_identifier` of group B.
    public static let groupB = "21099001"
    /// Group id reported for subscription products outside the catalogue.
    static let otherGroup = "21099999"

    /// The auto-renewable products of group A.
    public static let groupAProductIDs: [String] = [proMonthly, proYearly, premiumMonthly, proWeekly]
    /// The auto-renewable products of group B.
    public static let groupBProductIDs: [String] = [newsMonthly]
    /// Every auto-renewable subscription product.
    public static let subscriptionProductIDs: [String] = groupAProductIDs + groupBProductIDs
    /// Every product id the simulator uses, subscriptions first, then the consumable.
    public static let allProductIDs: [String] = subscriptionProductIDs + [coins100]

    /// The subscription group of a product id.
    public static func subscriptionGroup(of productID: String) -> String {
        if groupAProductIDs.contains(productID) { return groupA }
        if groupBProductIDs.contains(productID) { return groupB }
        return otherGroup
    }

    /// One day in milliseconds.
    public static let dayMs: Int64 = 86_400_000
    /// One week: period of the weekly product.
    public static let weekMs: Int64 = 7 * dayMs
    /// The simulator's "month" (30 days): period of the monthly products.
    public static let monthMs: Int64 = 30 * dayMs
    /// The simulator's "year" (365 days): period of the yearly products.
    public static let yearMs: Int64 = 365 * dayMs
    /// A month at Apple's default sandbox renewal rate (5 minutes).
    public static let sandboxMonthMs: Int64 = 5 * 60_000
}
