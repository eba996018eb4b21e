/// One scripted misbehaviour for one request (see `FaultPlan`).
public enum FaultStep: Sendable, Hashable {
    /// Answer normally (lets a sequence say "fail, then succeed, then fail").
    case answer
    /// HTTP 200 with this Apple `status` (e.g. 21005, 21009, 21104) instead of the real answer;
    /// `isRetryable` adds `is_retryable` (nil: the default for that status, see `VerifyReceiptResponder`).
    /// At the Server API the nearest error: 21010 → 404 `4040001`; 21002, 21003, 21007, 21008 →
    /// 404 `4040010`; anything else → 500 `5000001` (retryable).
    case appleStatus(Int, isRetryable: Bool? = nil)
    /// A non-200 HTTP answer (e.g. 503, 429) with an optional `Retry-After` header in seconds.
    /// At the Server API a 429 sends `Retry-After` as Apple does, a Unix time in milliseconds
    /// (now + the seconds given, 1 s by default), with the body `{"errorCode":4290000,…}`; a 500
    /// has the JSON body `5000000`; other codes the same HTML page as verifyReceipt.
    case httpError(Int, retryAfterSeconds: Int? = nil)
    /// Wait this long before answering normally (use longer than the client's timeout). A stall
    /// past `SimulatorOptions.requestTimeout` ends with HTTP 500 at that timeout.
    case stall(Duration)
    /// Send the real answer's headers (with its full Content-Length) and about half its body, then close.
    case truncatedBody
    /// Drop the connection without sending anything: a TCP RST (SO_LINGER 0), so the client reads ECONNRESET.
    case connectionReset
    /// HTTP 200 with an HTML error page instead of JSON.
    case nonJSONBody

    // Trust failures: the App Store Server API answers normally (HTTP 200, the real state) but
    // every signed item of the answer (`signedTransactionInfo`, `signedRenewalInfo`,
    // `signedTransactions`) carries the defect. verifyReceipt has no signed data: there these
    // steps answer normally (they still use up their place in the plan).

    /// Signed by a key that is not the leaf certificate's (the chain itself is good).
    case badSignature
    /// `x5c[0]` lacks Apple's leaf marker extension (OID 1.2.840.113635.100.6.11.1).
    case leafWithoutMarker
    /// `x5c[1]` lacks Apple's intermediate marker extension (OID 1.2.840.113635.100.6.2.1).
    case intermediateWithoutMarker
    /// A complete, well-formed chain under another root, which is sent as `x5c[2]`.
    case foreignRoot
    /// The leaf certificate's validity ended before the payload's `signedDate`.
    case expiredLeaf
    /// Transactions carry another app's `bundleId`.
    case otherBundleID
    /// Payloads carry the other environment (Sandbox at the production endpoint, and vice versa).
    case wrongEnvironment

    /// Name used in `SimulatorStatistics.faultsInjected`.
    public var name: String {
        switch self {
        case .answer: "answer"
        case .appleStatus(let status, _): "appleStatus.\(status)"
        case .httpError(let code, _): "httpError.\(code)"
        case .stall: "stall"
        case .truncatedBody: "truncatedBody"
        case .connectionReset: "connectionReset"
        case .nonJSONBody: "nonJSONBody"
        case .badSignature: "badSignature"
        case .leafWithoutMarker: "leafWithoutMarker"
        case .intermediateWithoutMarker: "intermediateWithoutMarker"
        case .foreignRoot: "foreignRoot"
        case .expiredLeaf: "expiredLeaf"
        case .otherBundleID: "otherBundleID"
        case .wrongEnvironment: "wrongEnvironment"
        }
    }
}

extension FaultStep {
    /// The `bundleId` that `otherBundleID` puts into signed transactions.
    public static let otherAppBundleID = "com.example.someotherapp"

    /// Whether the step only changes signed data (a no-op for verifyReceipt).
    var isTrustFailure: Bool {
        signedDataVariant(at: .production) != nil
    }

    /// The signed-data defect this step puts into a Server API answer from `environment`, or nil.
    func signedDataVariant(at environment: SimulatedEnvironment) -> SignedDataVariant? {
        switch self {
        case .badSignature: SignedDataVariant(chain: .badSignature)
        case .leafWithoutMarker: SignedDataVariant(chain: .leafWithoutMarker)
        case .intermediateWithoutMarker: SignedDataVariant(chain: .intermediateWithoutMarker)
        case .foreignRoot: SignedDataVariant(chain: .foreignRoot)
        case .expiredLeaf: SignedDataVariant(chain: .expiredLeaf)
        case .otherBundleID: SignedDataVariant(bundleID: SignedDataVariant.otherAppBundleID)
        case .wrongEnvironment: SignedDataVariant(environment: environment == .production ? .sandbox : .production)
        case .answer, .appleStatus, .httpError, .stall, .truncatedBody, .connectionReset, .nonJSONBody: nil
        }
    }
}
