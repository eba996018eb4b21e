/// A notification's decoded JWS payload (Apple's responseBodyV2DecodedPayload), as far as
/// subrecon reads it. Decoded only after the JWS verified.
struct NotificationPayload: Decodable, Equatable, Sendable {
    var notificationType: String
    var subtype: String?
    var notificationUUID: String
    var version: String?
    var signedDate: Int64
    var data: Contents?
    /// `RENEWAL_EXTENSION`/`SUMMARY`, `EXTERNAL_PURCHASE_TOKEN` and `RESCIND_CONSENT` carry one
    /// of these instead of `data`; only whose app it is matters to us.
    var summary: Envelope?
    var externalPurchaseToken: Envelope?
    var appData: Envelope?

    struct Contents: Decodable, Equatable, Sendable {
        var appAppleId: Int64?
        var bundleId: String?
        var environment: String?
        var signedTransactionInfo: String?
        var signedRenewalInfo: String?
        var status: Int?
    }

    struct Envelope: Decodable, Equatable, Sendable {
        var appAppleId: Int64?
        var bundleId: String?
        var environment: String?
    }

    /// The app and environment the payload names, wherever it names them.
    var envelope: Envelope? {
        if let data { return Envelope(appAppleId: data.appAppleId, bundleId: data.bundleId, environment: data.environment) }
        return summary ?? externalPurchaseToken ?? appData
    }
}

/// The body Apple POSTs (responseBodyV2).
struct NotificationBody: Decodable {
    var signedPayload: String
}
