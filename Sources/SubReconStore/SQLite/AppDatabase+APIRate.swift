import SubReconModel

/// One process at a time runs against a SQLite file (the run lock), so its App Store Server API
/// rate budget is its own: the limiter paces locally and the `api_rate` table stays empty.
extension AppDatabase: APIRateStore {
    public func reserveAPISlots(budget: String, count: Int, intervalMicros: Int64) async throws(StoreError)
        -> SlotReservation?
    { nil }

    public func pauseAPISlots(budget: String, forMicros micros: Int64) async throws(StoreError) {}
}
