import SubReconModel

/// The App Store Server API rate budget, shared by every worker on a PostgreSQL database.
public protocol APIRateStore: Sendable {
    /// Reserves `count` consecutive App Store Server API request slots, `intervalMicros` apart, of
    /// the rate budget `budget` that every worker on this database shares (PostgreSQL); nil where one
    /// process has the budget to itself (SQLite), which then paces its requests locally.
    func reserveAPISlots(budget: String, count: Int, intervalMicros: Int64) async throws(StoreError) -> SlotReservation?
    /// Apple answered 429: no slot of `budget` is reserved for anyone before `micros` from now
    /// (nothing to do on SQLite).
    func pauseAPISlots(budget: String, forMicros micros: Int64) async throws(StoreError)
}
