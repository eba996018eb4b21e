import SubReconModel

/// The App Store Server API's JSON bodies, as decoded (Apple's 'StatusResponse', 'HistoryResponse',
/// 'NotificationHistoryResponse' and 'Error codes' pages). Every field is
/// optional and unknown keys are ignored: Apple keeps adding fields and enum values.
package enum ServerAPIWire {
    /// Get All Subscription Statuses.
    package struct StatusResponse: Decodable {
        package var environment: String?
        package var bundleId: String?
        package var appAppleId: Int64?
        package var data: [Group]?

        package struct Group: Decodable {
            package var subscriptionGroupIdentifier: String?
            package var lastTransactions: [LastTransaction]?
        }

        package struct LastTransaction: Decodable {
            package var originalTransactionId: String?
            package var status: Int?
            package var signedTransactionInfo: String?
            package var signedRenewalInfo: String?
        }
    }

    /// Get Transaction History v2.
    package struct HistoryResponse: Decodable {
        package var revision: String?
        package var hasMore: Bool?
        package var bundleId: String?
        package var appAppleId: Int64?
        package var environment: String?
        package var signedTransactions: [String]?
    }

    /// Get Notification History: a page of signed notifications (`sendAttempts` are not read).
    package struct NotificationHistoryResponse: Sendable, Equatable {
        package var notificationHistory: [Item]?
        package var hasMore: Bool?
        package var paginationToken: String?

        package struct Item: Sendable, Equatable {
            /// The notification's JWS, as the receiver gets it in a POST's `signedPayload`.
            package var signedPayload: String
        }
    }

    /// Any non-2xx answer but 401: `{"errorCode": 4040010, "errorMessage": "..."}`.
    package struct ErrorBody: Decodable {
        package var errorCode: Int?
        package var errorMessage: String?
    }
}
