import SubReconModel

extension AppleAccount {
    /// A verifyReceipt answer (status 0 or 21006) mapped onto the model.
    public init(_ response: VerifyReceiptResponse, environment: ReceiptEnvironment) {
        self.init(
            environment: environment, transactions: response.transactions, renewals: response.pendingRenewals,
            replacementReceipt: response.latestReceipt, appleStatus: response.rawStatus)
    }
}

extension VerificationOutcome {
    /// A verifyReceipt answer (status 0 or 21006) as an outcome.
    public static func answered(_ response: VerifyReceiptResponse, environment: ReceiptEnvironment) -> VerificationOutcome {
        .answered(AppleAccount(response, environment: environment))
    }

    /// verifyReceipt's 21003.
    public static func invalid(appleStatus: Int, environment: ReceiptEnvironment?) -> VerificationOutcome {
        .invalid(
            appleStatus: appleStatus, environment: environment,
            message: "Apple could not authenticate this receipt (\(appleStatus)); its subscriptions were left as they were")
    }
}
