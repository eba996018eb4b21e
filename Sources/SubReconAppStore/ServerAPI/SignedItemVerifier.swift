import AppleSignedData
import SubReconModel

/// Verifies the signed transactions and renewal info Apple sends (in Server API answers and in
/// notifications) and binds them to our app: JWS → chain → root, then bundle id, environment,
/// and a renewal's tie to its transaction. Nothing is used before all of it passed.
package struct SignedItemVerifier: Sendable {
    package let verifier: SignedDataVerifier
    package let bundleID: String

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

    package init(verifier: SignedDataVerifier, bundleID: String) {
        self.verifier = verifier
        self.bundleID = bundleID
    }
}
