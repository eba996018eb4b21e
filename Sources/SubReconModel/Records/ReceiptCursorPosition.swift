/// Where a keyset page of receipts resumes.
public struct ReceiptCursorPosition: Sendable, Equatable {
    public var nextDueAt: Int64
    public var id: Int64

    public static let start = ReceiptCursorPosition(nextDueAt: .min, id: 0)

    public init(nextDueAt: Int64, id: Int64) {
        self.nextDueAt = nextDueAt
        self.id = id
    }
}
