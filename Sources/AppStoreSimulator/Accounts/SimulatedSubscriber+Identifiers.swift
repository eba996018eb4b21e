/// The ids a backend under test asks the Server API about, so tests and the CLI can name them
/// without knowing how the simulator derives them.
extension SimulatedSubscriber {
    /// The transaction id of transaction `index` of subscription `slot` (index 0: the original
    /// purchase, its `originalTransactionId`); `SimulatedIdentifiers.consumableSlot` is the consumable.
    public func transactionID(slot: Int = 0, index: Int64 = 0) -> Int64 {
        SimulatedIdentifiers.transactionID(subscriberID: id, slot: slot, index: index)
    }

    /// The order id of that transaction (Look Up Order ID; production accounts only).
    public func orderID(slot: Int = 0, index: Int64 = 0) -> String {
        SimulatedOrderID.orderID(subscriberID: id, slot: slot, index: index)
    }
}
