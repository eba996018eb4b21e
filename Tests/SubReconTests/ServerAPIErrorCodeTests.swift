import Testing

@testable import SubReconAppStore
@testable import SubReconModel

/// Apple's App Store Server API error codes as one named type: the codes subrecon acts on carry
/// Apple's names, an unknown one is kept as it came, and the retryable ones are the ones Apple
/// calls retryable.
@Suite struct ServerAPIErrorCodeTests {
    @Test func namedCodesSayApplesNameAndUnknownOnesStayRaw() {
        #expect(ServerAPIErrorCode.accountNotFound.rawValue == 4_040_001)
        #expect(ServerAPIErrorCode.accountNotFound.description == "4040001 (AccountNotFoundError)")
        #expect(ServerAPIErrorCode(rawValue: 4_040_010) == .transactionIDNotFound)
        #expect(ServerAPIErrorCode.familyTransactionNotSupported.description == "4000185 (FamilyTransactionNotSupportedError)")
        let unknown = ServerAPIErrorCode(rawValue: 4_000_999)
        #expect(unknown.name == nil)
        #expect(unknown.description == "4000999")
        #expect(AccountGone.serverAPIStatus == 4_040_001)
    }

    @Test func onlyApplesRetryableCodesAreRetried() {
        let retryable: [ServerAPIErrorCode] = [
            .accountNotFoundRetryable, .appNotFoundRetryable, .originalTransactionIDNotFoundRetryable, .generalInternalRetryable,
        ]
        #expect(retryable.allSatisfy { $0.isRetryable })
        #expect(![ServerAPIErrorCode.accountNotFound, .appNotFound, .transactionIDNotFound, .generalInternal, .rateLimitExceeded,
                  ServerAPIErrorCode(rawValue: 4_040_099)].contains { $0.isRetryable })
    }

    @Test func setAppAccountTokensRefusalNamesTheCodeOrSaysWhereToLook() {
        let named = AppAccountTokenSetter.Failure.refused(status: 400, errorCode: .familyTransactionNotSupported)
        #expect(named.description == "Apple refused to set the app account token: HTTP 400, 4000185 (FamilyTransactionNotSupportedError)")
        let unknown = AppAccountTokenSetter.Failure.refused(status: 400, errorCode: ServerAPIErrorCode(rawValue: 4_000_999))
        #expect(unknown.description == "Apple refused to set the app account token: HTTP 400, 4000999 (see Apple's error codes)")
    }
}
