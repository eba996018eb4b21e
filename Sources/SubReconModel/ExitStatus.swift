/// The contract's exit codes, in one place: every command ends with one of these, and each typed
/// error says which (`exitCode`). The numbers after 2 are sysexits.h's, as cron and shells know them.
public enum ExitStatus: Int32, Sendable, CaseIterable {
    /// Done; every item got a definitive answer.
    case success = 0
    /// Done, but some items got no usable answer (they stay for the next run), or a comparison
    /// found differences (`parity`, `report apple-parity`).
    case incomplete = 1
    /// Usage or configuration error, found before anything changed.
    case configuration = 2
    /// Bad input data (EX_DATAERR): every problem listed as `FILE:LINE: reason`, nothing stored.
    case badInput = 65
    /// An input file cannot be opened or read (EX_NOINPUT).
    case unreadableInput = 66
    /// An output file cannot be created (EX_CANTCREAT).
    case cannotCreateOutput = 73
    /// The database failed (EX_IOERR).
    case databaseFailed = 74
    /// Another run holds the run lock; nothing was done (EX_TEMPFAIL).
    case locked = 75
}
