/// One row of a Summary Sales Report, with the columns the parity report reads. Money is in
/// milliunits of `customerCurrency`, per unit and signed, as Apple writes it (a refund row has
/// negative units and a negative price).
public struct SalesReportRow: Sendable, Equatable {
    /// The row's line in the file (1 is the header), for messages.
    public var line: Int
    /// For an in-app purchase, the product ID set in App Store Connect.
    public var sku: String
    /// `IAY`, `IAY-M` (auto-renewable), `1F`, `3`, … (Apple's Product Type Identifier).
    public var productTypeIdentifier: String
    /// Summed units; negative for refunds.
    public var units: Int64
    /// Customer Price per unit × 1000 (signed).
    public var customerPriceMilliunits: Int64
    /// ISO 4217 code.
    public var customerCurrency: String
    /// ISO 3166-1 alpha-2 storefront.
    public var countryCode: String
    /// `New`, `Renewal` or empty.
    public var subscription: String
    /// `7 Days`, `1 Month`, … or empty.
    public var period: String
    /// Developer Proceeds per unit × 1000; nil when the column is absent or the cell empty.
    public var developerProceedsMilliunits: Int64?
    /// e.g. `Pay As You Go Intro Offer`, or empty.
    public var orderType: String

    public init(
        line: Int, sku: String, productTypeIdentifier: String, units: Int64, customerPriceMilliunits: Int64,
        customerCurrency: String, countryCode: String, subscription: String = "", period: String = "",
        developerProceedsMilliunits: Int64? = nil, orderType: String = ""
    ) {
        self.line = line
        self.sku = sku
        self.productTypeIdentifier = productTypeIdentifier
        self.units = units
        self.customerPriceMilliunits = customerPriceMilliunits
        self.customerCurrency = customerCurrency
        self.countryCode = countryCode
        self.subscription = subscription
        self.period = period
        self.developerProceedsMilliunits = developerProceedsMilliunits
        self.orderType = orderType
    }
}
