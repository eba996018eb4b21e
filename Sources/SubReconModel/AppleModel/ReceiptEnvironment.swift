/// The App Store environment a receipt belongs to, spelled as Apple spells it in `verifyReceipt`
/// answers and as the contract spells it in imports and reports.
public enum ReceiptEnvironment: String, Sendable, Codable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
}

extension ReceiptEnvironment {
    /// An `--environment` flag's value: Apple's spelling in any case (`sandbox`, `Sandbox`, `SANDBOX`).
    public init?(flag text: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else { return nil }
        self = match
    }

    /// Why an `--environment` value was refused.
    public static func flagProblem(_ text: String) -> String {
        "--environment must be Production (the default) or Sandbox, in either case; not \"\(text)\""
    }
}
