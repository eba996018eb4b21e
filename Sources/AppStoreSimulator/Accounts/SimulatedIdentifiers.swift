/// Deterministic Apple-style ids derived from (subscriber id, subscription slot, transaction index),
/// so the same receipt always reports the same ids and every period has its own.
enum SimulatedIdentifiers {
    /// Subscriber ids are reduced modulo this; ids are unique below it.
    static let subscriberModulus: Int64 = 10_000_000_000
    /// Slot used for the consumable's transaction.
    static let consumableSlot = 9

    /// `transaction_id`: 18 digits starting with 1. The original transaction id is index 0.
    static func transactionID(subscriberID: Int64, slot: Int, index: Int64) -> Int64 {
        100_000_000_000_000_000 + local(subscriberID: subscriberID, slot: slot, index: index)
    }

    /// `web_order_line_item_id`: 18 digits starting with 2.
    static func webOrderLineItemID(subscriberID: Int64, slot: Int, index: Int64) -> Int64 {
        200_000_000_000_000_000 + local(subscriberID: subscriberID, slot: slot, index: index)
    }

    /// `receipt.download_id` for production receipts.
    static func downloadID(subscriberID: Int64) -> Int64 {
        84_000_000_000_000 + positiveModulo(subscriberID, 1_000_000_000_000)
    }

    private static func local(subscriberID: Int64, slot: Int, index: Int64) -> Int64 {
        positiveModulo(subscriberID, subscriberModulus) * 10_000_000
            + Int64(slot % 10) * 1_000_000
            + positiveModulo(index, 1_000_000)
    }

    private static func positiveModulo(_ value: Int64, _ modulus: Int64) -> Int64 {
        let rest = value % modulus
        return rest < 0 ? rest + modulus : rest
    }
}
