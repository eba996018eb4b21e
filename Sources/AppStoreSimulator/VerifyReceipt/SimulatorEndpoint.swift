/// Which of the two verifyReceipt URLs a request was sent to.
public enum SimulatorEndpoint: String, Sendable, Hashable, CaseIterable {
    /// `/verifyReceipt`, standing in for `https://buy.itunes.apple.com/verifyReceipt`.
    case production
    /// `/sandbox/verifyReceipt`, standing in for `https://sandbox.itunes.apple.com/verifyReceipt`.
    case sandbox

    /// The URL path this endpoint is served on.
    public var path: String {
        switch self {
        case .production: "/verifyReceipt"
        case .sandbox: "/sandbox/verifyReceipt"
        }
    }

    /// The environment whose receipts this endpoint accepts.
    var environment: SimulatedEnvironment {
        switch self {
        case .production: .production
        case .sandbox: .sandbox
        }
    }
}
