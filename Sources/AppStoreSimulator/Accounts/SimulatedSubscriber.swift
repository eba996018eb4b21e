/// A whole simulated App Store account. It travels inside the receipt data itself
/// (see `SimulatedReceipt`), which keeps the simulator stateless: it can serve any number of
/// receipts without remembering anything per receipt.
public struct SimulatedSubscriber: Codable, Sendable, Hashable {
    /// Seeds every id in the receipt (transaction ids, web order line item ids, download id), so
    /// ids are deterministic and stable across calls. Ids are unique for `0 ..< 10_000_000_000`.
    public var id: Int64
    /// Production receipts are only accepted by the production endpoint, Sandbox ones only by the sandbox endpoint.
    public var environment: SimulatedEnvironment
    /// `in_app_ownership_type` of the subscription transactions.
    public var ownership: SimulatedOwnership
    /// Where the account buys: the signed transactions' `storefront` and the currency of their
    /// `price` (see `SimulatedPriceTable`). verifyReceipt carries neither.
    public var storefront: SimulatedStorefront
    /// `receipt_creation_date` of the stored receipt; also when the consumable was bought.
    public var receiptCreatedMs: Int64
    /// The auto-renewable subscriptions (each its own `original_transaction_id`). Empty = the
    /// receipt holds only a consumable. At most 9 get distinct transaction-id ranges.
    public var subscriptions: [SimulatedSubscription]
    /// When set, every verification of this receipt answers this status (e.g. 21003, 21010),
    /// after the request and environment checks.
    public var fixedStatus: Int?
    /// Filler bytes appended to the encoded account so the base64 receipt has a realistic size.
    public var paddingBytes: Int
    /// Bumped by the simulator in `latest_receipt` (number of transactions so far) so the
    /// receipt string changes after each renewal, like Apple's rotating receipts. No effect on answers.
    public var revision: Int
    /// The app the account bought in (`SimulatedApp.bundleID`); nil: the simulator's first app.
    /// Its receipts and signed data carry that app's bundle id, and only that app's bearer tokens
    /// find it through the Server API.
    public var bundleID: String?
    /// Which `appAccountToken` the account's purchases carry (see `appAccountToken`).
    var appAccountTokenChoice: SimulatedAppAccountTokenChoice = .derived

    /// True when the receipt has no auto-renewable subscription (answers status 0 without
    /// `latest_receipt_info`, `pending_renewal_info` or `latest_receipt`).
    public var noSubscriptions: Bool { subscriptions.isEmpty }

    /// The UUID the app attached to the account's purchases (lowercase, as Apple sends it): the
    /// signed transactions' `appAccountToken` and verifyReceipt's `app_account_token`. By default
    /// one derived from `id` (`ServerAPIIdentifiers.appAccountToken(subscriberID:)`); set nil (or empty)
    /// for purchases made without a token (the field is then absent), or any UUID.
    public var appAccountToken: String? {
        get {
            switch appAccountTokenChoice {
            case .derived: ServerAPIIdentifiers.appAccountToken(subscriberID: id)
            case .absent: nil
            case .chosen(let token): token
            }
        }
        set {
            appAccountTokenChoice = SimulatedAppAccountTokenChoice(newValue?.lowercased(), subscriberID: id)
        }
    }

    /// The ISO 4217 currency the account pays in.
    public var currency: String { storefront.currency }

    /// Creates an account; `receiptCreatedMs` defaults to the first subscription's first purchase.
    public init(
        id: Int64,
        environment: SimulatedEnvironment = .production,
        ownership: SimulatedOwnership = .purchased,
        storefront: SimulatedStorefront = .usa,
        receiptCreatedMs: Int64? = nil,
        subscriptions: [SimulatedSubscription],
        fixedStatus: Int? = nil,
        paddingBytes: Int = 0,
        revision: Int = 0,
        bundleID: String? = nil
    ) {
        self.id = id
        self.environment = environment
        self.ownership = ownership
        self.storefront = storefront
        self.receiptCreatedMs = receiptCreatedMs ?? subscriptions.first?.firstPurchaseMs ?? 0
        self.subscriptions = subscriptions
        self.fixedStatus = fixedStatus
        self.paddingBytes = paddingBytes
        self.revision = revision
        self.bundleID = bundleID
    }
}
