/// The App Store environment a simulated receipt belongs to; raw values are Apple's wire strings.
public enum SimulatedEnvironment: String, Codable, Sendable, Hashable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"

    /// `receipt.receipt_type` as Apple reports it for this environment.
    var receiptType: String {
        switch self {
        case .production: "Production"
        case .sandbox: "ProductionSandbox"
        }
    }
}
