import SubReconAppStore
import SubReconModel
import SubReconStore

/// The rate limiter knows only a schedule; the store that shares it between workers is wired here.
extension SharedRateSchedule {
    /// The budget `budget` kept in `store` (PostgreSQL's `api_rate`; SQLite answers nil);
    /// `observer` sees every reservation.
    public static func store(
        _ store: any SubscriptionStore, budget: String, observer: (@Sendable (SlotReservation) -> Void)? = nil
    ) -> SharedRateSchedule {
        SharedRateSchedule(
            reserve: { count, intervalMicros in
                let reservation = try await store.reserveAPISlots(budget: budget, count: count, intervalMicros: intervalMicros)
                if let reservation { observer?(reservation) }
                return reservation
            },
            pause: { micros in try await store.pauseAPISlots(budget: budget, forMicros: micros) })
    }
}
