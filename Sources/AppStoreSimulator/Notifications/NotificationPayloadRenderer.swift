/// Renders and signs `responseBodyV2DecodedPayload`: the notification's own fields, and `data`
/// with the subscription's transaction and renewal JWSs exactly as Get All Subscription Statuses
/// renders them at the notification's `signedDate` (same renderer, same "now").
struct NotificationPayloadRenderer {
    let authority: SimulatedSigningAuthority
    let bundleID: String
    let appAppleID: Int64

    /// `data.bundleVersion`: the simulated app's build (verifyReceipt has no such field to agree with).
    static let bundleVersion = "1.0"

    /// The signed payload of a notification about `slot` of `subscriber` as of `signedDateMs`,
    /// and that subscription's original transaction id. A `TEST` notification, or a slot not
    /// bought yet at that time, carries `data` without transaction, renewal and status.
    func signedPayload(
        type: SimulatedNotificationType, subtype: SimulatedNotificationSubtype?, notificationUUID: String,
        subscriber: SimulatedSubscriber, slot: Int, signedDateMs: Int64, signing: NotificationSigning
    ) -> (jws: [UInt8], originalTransactionID: Int64?) {
        if type == .test {
            let jws = signedTestPayload(
                notificationUUID: notificationUUID, environment: subscriber.environment, signedDateMs: signedDateMs,
                signing: signing)
            return (jws, nil)
        }
        let renderer = ServerAPIBodyRenderer(
            subscriber: subscriber, environment: subscriber.environment, nowMs: signedDateMs, bundleID: bundleID,
            appAppleID: appAppleID, authority: authority, variant: signing.signedDataVariant)
        let timeline = renderer.timelines.first { $0.slot == slot }
        var json = header(type: type, subtype: subtype, notificationUUID: notificationUUID)
        json.key("data")
        json.beginObject()
        dataIdentity(&json, environment: subscriber.environment, signing: signing)
        if let timeline {
            json.key("signedTransactionInfo")
            json.unescapedString {
                $0.append(contentsOf: renderer.sign(renderer.transactionPayload(timeline.newestTransaction, in: timeline)))
            }
            json.key("signedRenewalInfo")
            json.unescapedString { $0.append(contentsOf: renderer.sign(renderer.renewalPayload(timeline))) }
            json.field("status", number: Int64(ServerAPIBodyRenderer.status(of: timeline, nowMs: signedDateMs)))
        }
        json.endObject()
        trailer(&json, signedDateMs: signedDateMs)
        let originalTransactionID = timeline.map {
            SimulatedIdentifiers.transactionID(subscriberID: subscriber.id, slot: $0.slot, index: 0)
        }
        return (renderer.sign(json.bytes), originalTransactionID)
    }

    /// A `TEST` notification for no subscriber: `data` holds only `appAppleId`, `bundleId` and `environment`.
    func signedTestPayload(
        notificationUUID: String, environment: SimulatedEnvironment, signedDateMs: Int64, signing: NotificationSigning
    ) -> [UInt8] {
        var json = header(type: .test, subtype: nil, notificationUUID: notificationUUID)
        json.key("data")
        json.beginObject()
        if environment == .production {
            json.field("appAppleId", number: appAppleID)
        }
        json.field("bundleId", signing.bundleID ?? bundleID)
        json.field("environment", environment.rawValue)
        json.endObject()
        trailer(&json, signedDateMs: signedDateMs)
        return SimulatedJWSSigner.sign(payload: json.bytes, with: authority.chain(signing.chain))
    }

    private func header(
        type: SimulatedNotificationType, subtype: SimulatedNotificationSubtype?, notificationUUID: String
    ) -> JSONByteWriter {
        var json = JSONByteWriter(capacity: 8192)
        json.beginObject()
        json.field("notificationType", type.rawValue)
        if let subtype {
            json.field("subtype", subtype.rawValue)
        }
        json.field("notificationUUID", notificationUUID)
        return json
    }

    /// The `data` fields every in-app purchase notification has; the sandbox has no `appAppleId`.
    private func dataIdentity(_ json: inout JSONByteWriter, environment: SimulatedEnvironment, signing: NotificationSigning) {
        if environment == .production {
            json.field("appAppleId", number: appAppleID)
        }
        json.field("bundleId", signing.bundleID ?? bundleID)
        json.field("bundleVersion", Self.bundleVersion)
        json.field("environment", environment.rawValue)
    }

    private func trailer(_ json: inout JSONByteWriter, signedDateMs: Int64) {
        json.field("version", "2.0")
        json.field("signedDate", number: signedDateMs)
        json.endObject()
    }
}
