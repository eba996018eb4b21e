/// Request slots reserved from an API rate budget that several workers share (PostgreSQL's
/// `api_rate` row, a GCRA schedule): `count` consecutive slots `intervalMicros` apart, starting at
/// `firstSlotMicros`. Times are on the database's clock (microseconds since 1970): a worker
/// converts them to its own through `databaseNowMicros`, the database's clock when it reserved them,
/// so hosts whose clocks disagree still share one schedule.
public struct SlotReservation: Sendable, Equatable {
    /// The database's clock when it made the reservation.
    public var databaseNowMicros: Int64
    /// The first reserved slot (never before `databaseNowMicros`).
    public var firstSlotMicros: Int64
    public var count: Int
    public var intervalMicros: Int64

    public init(databaseNowMicros: Int64, firstSlotMicros: Int64, count: Int, intervalMicros: Int64) {
        self.databaseNowMicros = databaseNowMicros
        self.firstSlotMicros = firstSlotMicros
        self.count = count
        self.intervalMicros = intervalMicros
    }

    /// How long after the reservation the first slot comes.
    public var firstSlotDelayMicros: Int64 { firstSlotMicros - databaseNowMicros }

    /// Just past the last slot: where the schedule stood right after this reservation.
    public var endMicros: Int64 { firstSlotMicros + Int64(count) * intervalMicros }
}
