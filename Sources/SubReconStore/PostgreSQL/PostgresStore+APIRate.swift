import PostgresNIO
import SubReconModel

/// The App Store Server API rate budget every worker on this database shares (see
/// docs/postgresql.md, "One API rate budget for all workers"): one `api_rate` row per
/// budget whose `next_slot_us` is a GCRA schedule, the database's time of the next free request
/// slot. A worker reserves a few consecutive slots at a time in one statement, so the slots of all
/// workers never overlap however many there are; one that dies just stops reserving.
extension PostgresStore: APIRateStore {
    /// The row is created by the first reservation. The database's clock is read once (the CTE),
    /// and both the slots and that clock come back, so a worker converts the slots to its own clock.
    public func reserveAPISlots(budget: String, count: Int, intervalMicros: Int64) async throws(StoreError)
        -> SlotReservation?
    {
        let count = max(1, count)
        let intervalMicros = max(1, intervalMicros)
        let span = Int64(count) * intervalMicros
        return try await withConnection("reserving App Store Server API request slots") { connection in
            var reservation: SlotReservation?
            for try await row in try await connection.run(
                """
                WITH clock AS (SELECT \(Self.databaseNowMicros) AS now_us)
                INSERT INTO api_rate AS r (name, next_slot_us) SELECT ?, now_us + ? FROM clock
                ON CONFLICT (name) DO UPDATE SET next_slot_us = GREATEST(r.next_slot_us + ?, excluded.next_slot_us)
                RETURNING r.next_slot_us, (SELECT now_us FROM clock)
                """, [.text(budget), .integer(span), .integer(span)])
            {
                let (end, now) = try row.decode((Int64, Int64).self)
                reservation = SlotReservation(
                    databaseNowMicros: now, firstSlotMicros: end - span, count: count, intervalMicros: intervalMicros)
            }
            guard let reservation else { throw StoreError.failed(operation: "reserving request slots", reason: "no row came back") }
            return reservation
        }
    }

    /// Pushes the schedule past the pause, on the database's clock; never pulls it back.
    public func pauseAPISlots(budget: String, forMicros micros: Int64) async throws(StoreError) {
        try await withConnection("pausing App Store Server API requests") { connection in
            try await connection.run(
                """
                INSERT INTO api_rate AS r (name, next_slot_us) VALUES (?, \(Self.databaseNowMicros) + ?)
                ON CONFLICT (name) DO UPDATE SET next_slot_us = GREATEST(r.next_slot_us, excluded.next_slot_us)
                """, [.text(budget), .integer(max(0, micros))])
        }
    }

    /// Microseconds since 1970 now, in PostgreSQL (`clock_timestamp()`: the time of the statement's
    /// execution, not of its transaction's start).
    package static let databaseNowMicros = "(floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint)"
}
