import Foundation
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

/// The receiver reads notification bodies and payloads with the one-pass scanner; it must read
/// exactly what Foundation's JSONDecoder read, and refuse what it refused.
@Suite("Notification payload scanning")
struct NotificationPayloadScanningTests {
    @Test(arguments: [
        "signedNotification", "signedSummaryNotification", "signedExternalPurchaseTokenNotification",
        "signedRescindConsentNotification",
    ])
    func apples_notificationPayloadsReadAsJSONDecoderReadsThem(name: String) throws {
        let bytes = try ServerAPIMappingTests.fixture(name)
        let scanned = try NotificationPayload.scan(Array(bytes))
        #expect(scanned == (try JSONDecoder().decode(NotificationPayload.self, from: bytes)))
        #expect(scanned.notificationUUID == "002e14d5-51f5-4503-b5a8-c3a1af68eb20")
        #expect(scanned.signedDate == 1_698_148_900_000)
        #expect(scanned.envelope?.bundleId == "com.example")
    }

    @Test func theSubscribedFixtureCarriesItsSignedItems() throws {
        let scanned = try NotificationPayload.scan(Array(ServerAPIMappingTests.fixture("signedNotification")))
        #expect(scanned.notificationType == "SUBSCRIBED")
        #expect(scanned.subtype == "INITIAL_BUY")
        #expect(scanned.data?.signedTransactionInfo == "signed_transaction_info_value")
        #expect(scanned.data?.signedRenewalInfo == "signed_renewal_info_value")
        #expect(scanned.data?.appAppleId == 41234)
        #expect(scanned.data?.status == 1)
        #expect(scanned.data?.environment == "LocalTesting")
    }

    /// Each of these is either read identically by both or refused by both.
    @Test(arguments: [
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1.0}"#,
        #"{"notificationType":"T\u00c9ST","notificationUUID":"\"u\"","signedDate":-5,"subtype":""}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"data":null,"summary":null}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"data":{}}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"data":{"status":1,"x":[{"y":2}]}}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"appData":{"bundleId":"b","appAppleId":7}}"#,
        // Refused by both: a missing or mistyped required field, a mistyped optional one, broken JSON.
        #"{"notificationType":"TEST","notificationUUID":"u"}"#,
        #"{"notificationType":"TEST","signedDate":1}"#,
        #"{"notificationType":1,"notificationUUID":"u","signedDate":1}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":"1"}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1.5}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"subtype":5}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"data":"x"}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"data":{"status":"1"}}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"data":{"bundleId":true}}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1,"summary":[]}"#,
        #"{"notificationType":"TEST","notificationUUID":"u","signedDate":1"#,
        #"["notificationType"]"#, "", "null",
        #"{"notificationType":"UNCLAIM_SEATS","notificationUUID":"u","signedDate":1,"unclaimInfo":{"bundleId":"b","environment":"Sandbox","unclaimSeatIds":["1"]}}"#,
        #"{"notificationType":"UNCLAIM_SEATS","notificationUUID":"u","signedDate":1,"unclaimInfo":7}"#,
    ])
    func aPayloadReadsAsJSONDecoderReadsItOrIsRefusedByBoth(text: String) {
        let decoded = try? JSONDecoder().decode(NotificationPayload.self, from: Data(text.utf8))
        let scanned = try? NotificationPayload.scan(Array(text.utf8))
        #expect(scanned == decoded)
    }

    @Test(arguments: [
        (#"{"signedPayload":"a.b.c"}"#, "a.b.c"),
        (#" {"other":[1,{"x":null}],"signedPayload":"a\/b"} "#, "a/b"),
        (#"{"signedPayload":1}"#, nil),
        (#"{"signedPayload":null}"#, nil),
        (#"{"payload":"a"}"#, nil),
        (#"{"signedPayload":"a"}x"#, nil),
        ("[]", nil),
    ] as [(String, String?)])
    func aBodyYieldsItsSignedPayloadOrNothing(body: String, expected: String?) {
        let decoded = try? JSONDecoder().decode(NotificationBody.self, from: Data(body.utf8))
        let scanned = try? NotificationBody.scan(Array(body.utf8))
        #expect(scanned?.signedPayload == expected)
        #expect(decoded?.signedPayload == expected)
    }

    /// Notifications 2.23's `UNCLAIM_SEATS` names its app in `unclaimInfo`, not `data`: the
    /// envelope is read from there (it was refused as naming another app before).
    @Test func unclaimSeatsNamesItsAppInUnclaimInfo() throws {
        let text = #"{"notificationType":"UNCLAIM_SEATS","notificationUUID":"u","signedDate":1,"unclaimInfo":{"appAppleId":5,"bundleId":"com.example.app","environment":"Production","unclaimSeatIds":["a"]}}"#
        let payload = try NotificationPayload.scan(Array(text.utf8))
        #expect(payload.envelope == NotificationPayload.Envelope(appAppleId: 5, bundleId: "com.example.app", environment: "Production"))
        #expect(payload.data == nil)
    }
}
