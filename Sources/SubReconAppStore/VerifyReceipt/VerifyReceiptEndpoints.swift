import SubReconModel

/// Where verifyReceipt lives: Apple's two URLs by default, or any compatible endpoint.
public struct VerifyReceiptEndpoints: Sendable, Equatable {
    public var production: String
    public var sandbox: String

    public static let apple = VerifyReceiptEndpoints(
        production: "https://buy.itunes.apple.com/verifyReceipt",
        sandbox: "https://sandbox.itunes.apple.com/verifyReceipt")

    public init(production: String, sandbox: String) {
        self.production = production
        self.sandbox = sandbox
    }

    public func url(for environment: ReceiptEnvironment) -> String {
        environment == .production ? production : sandbox
    }
}
