/// One receipt read from an import file, validated and normalised.
public struct ImportRow: Sendable, Equatable {
    /// The 1-based physical line of the file where this record starts.
    public var line: Int
    /// The app's user identifier, exactly as given (never empty, no surrounding whitespace).
    public var userID: String
    /// The receipt, standard base64, with surrounding whitespace removed.
    public var receiptData: String
    /// The product the app reported at purchase; `nil` when absent or empty. Kept for reports,
    /// never used to filter.
    public var productID: String?
    /// Where to verify first; `nil` when absent or empty.
    public var environment: ReceiptEnvironment?
    /// A transaction id of the customer (the App Store Server API is asked about it); optional.
    public var transactionID: String?
    /// The app the receipt belongs to (`bundle_id`); nil when the deployment has one app and the
    /// row names none.
    public var bundleID: String?
    /// The token the app server handed the app before the purchase (`app_account_token`, a UUID,
    /// lower-cased): a transaction or notification carrying it is this user's.
    public var appAccountToken: String?

    /// A row that only registers a token (neither receipt data nor a transaction id).
    public var registersTokenOnly: Bool { receiptData.isEmpty && transactionID == nil && appAccountToken != nil }

    /// Creates a row; the parser is the usual source of these.
    public init(
        line: Int,
        userID: String,
        receiptData: String,
        productID: String? = nil,
        environment: ReceiptEnvironment? = nil,
        transactionID: String? = nil,
        bundleID: String? = nil,
        appAccountToken: String? = nil
    ) {
        self.appAccountToken = appAccountToken
        self.bundleID = bundleID
        self.transactionID = transactionID
        self.line = line
        self.userID = userID
        self.receiptData = receiptData
        self.productID = productID
        self.environment = environment
    }
}
