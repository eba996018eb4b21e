/// What Apple's signed transaction says about the money of one billed period (Apple's
/// 'JWSTransactionDecodedPayload' page): the customer's price in milliunits of its currency, the
/// storefront, the offer and, after a refund, how much of it was revoked. Only signed data carries
/// it; verifyReceipt gives none.
/// Every field is Apple's value as it came (an unknown enum string is kept); a malformed number
/// is nil, never a guess.
public struct TransactionMoney: Sendable, Equatable {
    /// Apple's `price`: thousandths of the currency unit (9990 = 9.99); nil when absent or malformed.
    public var priceMilliunits: Int64?
    /// ISO 4217.
    public var currency: String?
    /// ISO 3166-1 alpha-3.
    public var storefront: String?
    /// 1–4 (introductory, promotional, offer code, win-back).
    public var offerType: Int?
    /// `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`, `ONE_TIME`.
    public var offerDiscountType: String?
    /// ISO 8601 duration of the offer.
    public var offerPeriod: String?
    /// `PURCHASE` or `RENEWAL`.
    public var transactionReason: String?
    /// `REFUND_FULL`, `REFUND_PRORATED`, `FAMILY_REVOKE`.
    public var revocationType: String?
    /// Milli-percent, 0–100000; nil when absent or out of range.
    public var revocationPercentage: Int64?
    /// When Apple signed this data (ms): the newest data about a period wins.
    public var signedDateMs: Int64?

    public init(
        priceMilliunits: Int64? = nil, currency: String? = nil, storefront: String? = nil, offerType: Int? = nil,
        offerDiscountType: String? = nil, offerPeriod: String? = nil, transactionReason: String? = nil,
        revocationType: String? = nil, revocationPercentage: Int64? = nil, signedDateMs: Int64? = nil
    ) {
        self.priceMilliunits = priceMilliunits
        self.currency = currency
        self.storefront = storefront
        self.offerType = offerType
        self.offerDiscountType = offerDiscountType
        self.offerPeriod = offerPeriod
        self.transactionReason = transactionReason
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.signedDateMs = signedDateMs
    }
}
