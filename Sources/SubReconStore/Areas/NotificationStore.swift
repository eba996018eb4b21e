import SubReconModel

/// App Store Server Notifications V2: stored with what they change, and linked once their receipt
/// comes.
public protocol NotificationStore: Sendable {
    /// Stores verified notifications and carries out their plans, in one transaction, in order: the
    /// result is what storing them one after another would give (a later one sees the earlier
    /// ones' writes; the same uuid twice is a duplicate the second time), one result per write.
    /// A uuid stored before changes nothing but its delivery count (`countsAsDelivery`), unless it
    /// is still unmatched and a receipt now knows its transaction: it is then linked and applied.
    func storeNotifications(_ writes: [NotificationWrite]) async throws(StoreError) -> [NotificationStoreResult]
    /// Unmatched notifications that some stored receipt now knows, oldest `signedDate` first.
    func linkableNotifications(limit: Int) async throws(StoreError) -> [LinkableNotification]
}
