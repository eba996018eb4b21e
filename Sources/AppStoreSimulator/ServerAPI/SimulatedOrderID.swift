/// The order ids of the simulated accounts: what Apple prints on the customer's purchase receipt
/// email and Look Up Order ID takes. Apple bills each purchase and each renewal as an order of its
/// own, so every transaction of a production account has one order id, derived from its
/// transaction id (subscriber id, slot, index) and reversible, so the simulator needs no table:
///
/// - 11 base-36 digits (`0-9A-Z`) of the transaction id's local part (the id minus 10^17), then
/// - one check character: the digits' values weighted by position (1…11), summed, modulo 36.
///
/// So the original purchase of slot 0 of subscriber 1 is order `0000005YC1SD` (see
/// `orderID(subscriberID:slot:index:)`). A string of that shape whose check character is wrong, or
/// one of another shape, is an order id Apple does not know: `{"status":1}`.
public enum SimulatedOrderID {
    static let digits = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
    static let length = 12
    private static let transactionBase: Int64 = 100_000_000_000_000_000

    /// The order id of transaction `index` of `slot` of subscriber `subscriberID`
    /// (`SimulatedIdentifiers.consumableSlot` for the consumable; index 0 is the original purchase).
    public static func orderID(subscriberID: Int64, slot: Int, index: Int64) -> String {
        orderID(transactionID: SimulatedIdentifiers.transactionID(subscriberID: subscriberID, slot: slot, index: index))
    }

    /// The order id of a simulator transaction id.
    static func orderID(transactionID: Int64) -> String {
        var local = transactionID - transactionBase
        var text = [UInt8](repeating: digits[0], count: length)
        for position in stride(from: length - 2, through: 0, by: -1) {
            text[position] = digits[Int(local % 36)]
            local /= 36
        }
        text[length - 1] = digits[checkValue(text.prefix(length - 1))]
        return String(decoding: text, as: UTF8.self)
    }

    /// The transaction id an order id names, or nil when it is not one of the simulator's.
    static func transactionID(orderID: Substring) -> Int64? {
        let bytes = Array(orderID.utf8)
        guard bytes.count == length else { return nil }
        var local: Int64 = 0
        for byte in bytes.prefix(length - 1) {
            guard let value = digits.firstIndex(of: byte) else { return nil }
            local = local * 36 + Int64(value)
        }
        guard digits.firstIndex(of: bytes[length - 1]) == checkValue(bytes.prefix(length - 1)),
              local < transactionBase
        else { return nil }
        return transactionBase + local
    }

    private static func checkValue(_ text: ArraySlice<UInt8>) -> Int {
        var sum = 0
        for (offset, byte) in text.enumerated() {
            sum += (offset + 1) * (digits.firstIndex(of: byte) ?? 0)
        }
        return sum % 36
    }
}
