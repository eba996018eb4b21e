import AppleSignedData
import SubReconModel

/// Verifies the signed transactions and renewal info Apple sends (in Server API answers and in
/// notifications) and binds them to our app: JWS → chain → root, then bundle id, environment,
/// and a renewal's tie to its transaction. Nothing is used before all of it passed.
package struct SignedItemVerifier: Sendable {
    package let verifier: SignedDataVerifier
    /// Our apps: a Server API client checks its one app; notifications may be any app's, and
    /// each is checked against the app its payload names.
    package let apps: [AppIdentity]
    package var bundleID: String { apps[0].bundleID }
    /// The app's Apple ID; checked against production answers and notifications when configured.
    package var appAppleID: Int64? { apps[0].appAppleID }

    /// Which check failed (a notification's refusal reason) and an operator-facing message.
    package struct Problem: Error {
        package var refusal: NotificationRefusal
        package var message: String

        package init(refusal: NotificationRefusal, message: String) {
            self.refusal = refusal
            self.message = message
        }
    }

    package func transaction(_ jws: String, environment: ReceiptEnvironment) async throws(Problem) -> SignedTransactionPayload {
        let payload: SignedTransactionPayload = try await verified(jws, what: "signed transaction")
        guard payload.bundleId == bundleID else {
            throw Problem(
                refusal: .bundle,
                message: "a signed transaction is for bundle \"\(payload.bundleId?.prefix(80) ?? "")\", not \(bundleID); nothing was changed")
        }
        try check(payload.environment, environment, what: "signed transaction")
        return payload
    }

    package func renewal(
        _ jws: String, of transaction: SignedTransactionPayload, environment: ReceiptEnvironment
    ) async throws(Problem) -> SignedRenewalPayload {
        let payload: SignedRenewalPayload = try await verified(jws, what: "signed renewal info")
        // Renewal info carries no bundle id: it must belong to the transaction it came with.
        guard payload.originalTransactionId == transaction.originalTransactionId else {
            throw Problem(
                refusal: .signature,
                message: "signed renewal info names another original transaction id than its transaction; nothing was changed")
        }
        try check(payload.environment, environment, what: "signed renewal info")
        return payload
    }

    package func verified<Payload: ScannedPayload>(_ jws: String, what: String) async throws(Problem) -> Payload {
        let data: VerifiedSignedData
        do {
            data = try await verifier.verify(jws)
        } catch {
            throw Problem(refusal: .signature, message: "\(what) failed verification: \(error.description); nothing was changed")
        }
        do {
            return try Payload.scan(data.payload)
        } catch {
            throw Problem(
                refusal: .malformed, message: "\(what) is signed but its payload is not the expected JSON; nothing was changed")
        }
    }

    private func check(_ value: String?, _ environment: ReceiptEnvironment, what: String) throws(Problem) {
        guard value == environment.rawValue else {
            throw Problem(
                refusal: .environment,
                message: "\(what) says environment \"\(value?.prefix(40) ?? "")\" at the \(environment.rawValue) endpoint "
                    + "(Xcode and LocalTesting data are never accepted); nothing was changed")
        }
    }

    package init(verifier: SignedDataVerifier, bundleID: String, appAppleID: Int64? = nil) {
        self.init(verifier: verifier, apps: [AppIdentity(bundleID: bundleID, appAppleID: appAppleID)])
    }

    package init(verifier: SignedDataVerifier, apps: [AppIdentity]) {
        precondition(!apps.isEmpty, "signed data is checked against at least one app")
        self.verifier = verifier
        self.apps = apps
    }

    /// A Server API answer's own bundle id, environment and (production, when configured) app id;
    /// a sentence saying what is wrong, or nil when the answer is ours.
    package func answerProblem(
        bundleID answered: String?, environment value: String?, appAppleID answeredAppID: Int64?,
        askedAt environment: ReceiptEnvironment
    ) -> String? {
        if let answered, answered != bundleID {
            return "the App Store Server API answered for bundle \"\(answered.prefix(80))\", not \(bundleID); nothing was changed"
        }
        if let value, value != environment.rawValue {
            return "the App Store Server API's \(environment.rawValue) endpoint answered for environment \"\(value.prefix(40))\"; nothing was changed"
        }
        if environment == .production, let otherApp = otherApp(answeredAppID) {
            return "the App Store Server API answered for app \(otherApp), not \(appAppleID ?? 0); nothing was changed"
        }
        return nil
    }

    /// A notification body's signed payload, verified whole: JWS → chain → root, one of our
    /// apps' bundle id (which then selects the app), Production or Sandbox, that app's id in
    /// production, then its signed transaction (which must name the same app) and renewal.
    package func notification(_ signedPayload: String) async throws(Problem) -> VerifiedNotification {
        let verified: VerifiedSignedData
        do {
            verified = try await verifier.verify(signedPayload)
        } catch {
            throw .init(refusal: .signature, message: "the notification failed verification: \(error.description)")
        }
        guard let payload = try? NotificationPayload.scan(verified.payload),
            !payload.notificationUUID.isEmpty, payload.notificationUUID.utf8.count <= 128
        else {
            throw .init(refusal: .malformed, message: "the notification is signed but its payload is not the expected JSON")
        }
        guard let envelope = payload.envelope else {
            throw .init(refusal: .bundle, message: "the notification names no app (none of data, summary, appData, unclaimInfo, ...)")
        }
        guard let app = apps.first(where: { $0.bundleID == envelope.bundleId }) else {
            throw .init(
                refusal: .bundle,
                message: "the notification is for bundle \"\(payload.envelope?.bundleId?.prefix(80) ?? "")\", not "
                    + (apps.count == 1 ? bundleID : "one of \(apps.map(\.bundleID).joined(separator: ", "))"))
        }
        return try await SignedItemVerifier(verifier: verifier, apps: [app])
            .notification(payload, envelope: envelope)
    }

    /// `notification(_:)` after the app is known: the checks against that one app.
    private func notification(_ payload: NotificationPayload, envelope: NotificationPayload.Envelope)
        async throws(Problem) -> VerifiedNotification
    {
        var result = VerifiedNotification(payload: payload)
        result.bundleID = bundleID
        if let text = envelope.environment {
            guard let environment = ReceiptEnvironment(rawValue: text) else {
                throw .init(
                    refusal: .environment,
                    message: "the notification is for environment \"\(text.prefix(40))\" (only Production and Sandbox are accepted)")
            }
            result.environment = environment
        }
        if result.environment == .production, let otherApp = otherApp(envelope.appAppleId) {
            throw .init(refusal: .bundle, message: "the notification is for app \(otherApp), not \(appAppleID ?? 0)")
        }
        guard let data = payload.data, let signedTransaction = data.signedTransactionInfo else { return result }
        guard let environment = result.environment else {
            throw .init(refusal: .environment, message: "the notification's data names no environment")
        }
        let transaction = try await self.transaction(signedTransaction, environment: environment)
        result.transaction = transaction
        if let signedRenewal = data.signedRenewalInfo {
            result.renewal = try await renewal(signedRenewal, of: transaction, environment: environment)
        }
        return result
    }

    /// The app id Apple named when it is not ours (only when ours is configured).
    private func otherApp(_ named: Int64?) -> Int64? {
        guard let appAppleID, let named, named != appAppleID else { return nil }
        return named
    }
}
