/// The seam between the run pipeline and whatever tells us what Apple knows about a receipt:
/// verifyReceipt today, the App Store Server API later, both mapped to `VerificationOutcome`.
public protocol ReceiptVerifier: Sendable {
    func verify(_ receipt: ReceiptToVerify) async -> VerificationOutcome
}
