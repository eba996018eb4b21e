/// The App Store Server API's JSON bodies, as decoded (reference §3, §4.1). Every field is
/// optional and unknown keys are ignored: Apple keeps adding fields and enum values.
enum ServerAPIWire {
    /// Get All Subscription Statuses.
    struct StatusResponse: Decodable {
        var environment: String?
        var bundleId: String?
        var appAppleId: Int64?
        var data: [Group]?

        struct Group: Decodable {
            var subscriptionGroupIdentifier: String?
            var lastTransactions: [LastTransaction]?
        }

        struct LastTransaction: Decodable {
            var originalTransactionId: String?
            var status: Int?
            var signedTransactionInfo: String?
            var signedRenewalInfo: String?
        }
    }

    /// Get Transaction History v2.
    struct HistoryResponse: Decodable {
        var revision: String?
        var hasMore: Bool?
        var bundleId: String?
        var appAppleId: Int64?
        var environment: String?
        var signedTransactions: [String]?
    }

    /// Any non-2xx answer but 401: `{"errorCode": 4040010, "errorMessage": "..."}`.
    struct ErrorBody: Decodable {
        var errorCode: Int?
        var errorMessage: String?
    }
}
