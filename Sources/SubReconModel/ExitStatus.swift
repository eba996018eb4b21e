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
    /// SIGINT stopped a run (128 + 2, as shells report it): cron tells an interruption from Apple's failures.
    case interrupted = 130
    /// SIGTERM stopped a run (128 + 15).
    case terminated = 143

    /// The status of a process that `signal` (SIGINT or SIGTERM) stopped; nil for any other signal.
    public static func stopped(by signal: Int32) -> ExitStatus? {
        ExitStatus(rawValue: 128 + signal).flatMap { [.interrupted, .terminated].contains($0) ? $0 : nil }
    }
}
