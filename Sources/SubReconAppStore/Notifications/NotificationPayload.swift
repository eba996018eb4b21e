import SubReconModel

/// A notification's decoded JWS payload (Apple's responseBodyV2DecodedPayload), as far as
/// subrecon reads it. Decoded only after the JWS verified.
package struct NotificationPayload: Decodable, Equatable, Sendable {
    package var notificationType: String
    package var subtype: String?
    package var notificationUUID: String
    package var version: String?
    package var signedDate: Int64
    package var data: Contents?
    /// `RENEWAL_EXTENSION`/`SUMMARY`, `EXTERNAL_PURCHASE_TOKEN`, `RESCIND_CONSENT` and
    /// `UNCLAIM_SEATS` (Notifications 2.23) carry one of these instead of `data`; only whose app
    /// it is matters to us.
    package var summary: Envelope?
    package var externalPurchaseToken: Envelope?
    package var appData: Envelope?
    package var unclaimInfo: Envelope? = nil

    package struct Contents: Decodable, Equatable, Sendable {
        package var appAppleId: Int64?
        package var bundleId: String?
        package var environment: String?
        package var signedTransactionInfo: String?
        package var signedRenewalInfo: String?
        package var status: Int?
    }

    package struct Envelope: Decodable, Equatable, Sendable {
        package var appAppleId: Int64?
        package var bundleId: String?
        package var environment: String?
    }

    /// The app and environment the payload names, wherever it names them.
    package var envelope: Envelope? {
        if let data { return Envelope(appAppleId: data.appAppleId, bundleId: data.bundleId, environment: data.environment) }
        return summary ?? externalPurchaseToken ?? appData ?? unclaimInfo
    }
}

/// The body Apple POSTs (responseBodyV2).
package struct NotificationBody: Decodable {
    package var signedPayload: String
}
