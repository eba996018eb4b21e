/// The App Store environment a receipt belongs to, spelled as Apple spells it in `verifyReceipt`
/// answers and as the contract spells it in imports and reports.
public enum ReceiptEnvironment: String, Sendable, Codable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
}
