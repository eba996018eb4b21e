/// One verified notification to store, with what to do with it (`SubscriptionStore.storeNotifications`).
public struct NotificationWrite: Sendable {
    public var notification: StoredNotification
    public var plan: NotificationPlan
    /// A delivery from Apple (the receiver, a backfill, an import) rather than the linking of a
    /// stored unmatched notification: a uuid stored before counts one more delivery.
    public var countsAsDelivery: Bool

    package init(notification: StoredNotification, plan: NotificationPlan, countsAsDelivery: Bool) {
        self.notification = notification
        self.plan = plan
        self.countsAsDelivery = countsAsDelivery
    }
}
