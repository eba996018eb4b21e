/// One in-app purchase record (a type-17 attribute) of an app receipt, with the fields subrecon
/// needs. Values are kept as the receipt spells them; absent fields are nil.
public struct AppReceiptPurchase: Sendable, Hashable {
    /// 1702 `product_id`.
    public var productID: String?
    /// 1703 `transaction_id`.
    public var transactionID: String?
    /// 1705 `original_transaction_id`.
    public var originalTransactionID: String?
    /// 1708 `expires_date`, raw (RFC 3339, e.g. `2026-01-01T12:00:00Z`); Apple writes an empty
    /// string for purchases that are not auto-renewable subscriptions.
    public var expiresDate: String?
    /// 1711 `web_order_line_item_id`.
    public var webOrderLineItemID: Int64?

    public init(
        productID: String? = nil,
        transactionID: String? = nil,
        originalTransactionID: String? = nil,
        expiresDate: String? = nil,
        webOrderLineItemID: Int64? = nil
    ) {
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.expiresDate = expiresDate
        self.webOrderLineItemID = webOrderLineItemID
    }

    /// An auto-renewable subscription: the record has a non-empty expiry.
    public var isSubscription: Bool {
        guard let expiresDate else { return false }
        return !expiresDate.isEmpty
    }
}

/// What `AppReceiptReader` found in an app receipt. Nothing in it is verified: use it only to
/// choose which transaction to ask Apple about (Apple's signed answer is what is trusted).
public struct AppReceiptContents: Sendable, Hashable {
    /// Type 2 `bundle_id`.
    public var bundleID: String?
    /// The type-17 records, in receipt order (which Apple does not guarantee).
    public var purchases: [AppReceiptPurchase]

    public init(bundleID: String?, purchases: [AppReceiptPurchase]) {
        self.bundleID = bundleID
        self.purchases = purchases
    }

    /// The transaction id to send to the App Store Server API for this receipt, or nil when the
    /// receipt holds no usable in-app record (the outcome is then `invalid`).
    ///
    /// In order of preference (ours: Get All Subscription Statuses takes any transaction id of the
    /// customer, so one of our subscriptions is asked about first), the first match in receipt order:
    /// 1. the `original_transaction_id` (1705) of a subscription record (non-empty 1708) whose
    ///    product is in `products` (an empty set means any product);
    /// 2. any record's `original_transaction_id`;
    /// 3. any record's `transaction_id` (1703).
    ///
    /// Only ids of 1 to 64 ASCII letters and digits are returned (Apple's are decimal digits): the
    /// receipt is unverified and the id goes into a URL path.
    public func transactionIDToAsk(products: Set<String>) -> String? {
        func wanted(_ purchase: AppReceiptPurchase) -> Bool {
            guard purchase.isSubscription else { return false }
            guard !products.isEmpty else { return true }
            return purchase.productID.map(products.contains) ?? false
        }
        for purchase in purchases where wanted(purchase) {
            if let id = purchase.originalTransactionID, Self.isPlausibleTransactionID(id) { return id }
        }
        for purchase in purchases {
            if let id = purchase.originalTransactionID, Self.isPlausibleTransactionID(id) { return id }
        }
        for purchase in purchases {
            if let id = purchase.transactionID, Self.isPlausibleTransactionID(id) { return id }
        }
        return nil
    }

    /// 1 to 64 ASCII letters or digits.
    static func isPlausibleTransactionID(_ id: String) -> Bool {
        let utf8 = id.utf8
        guard (1...64).contains(utf8.count) else { return false }
        return utf8.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
        }
    }
}
