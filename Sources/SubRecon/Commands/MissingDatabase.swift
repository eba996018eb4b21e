import SubReconModel

/// A command that only reads (`status`, `report`, `user`, `parity`, `link`, `forget`, `db copy`'s
/// source) was given a SQLite file that does not exist (exit 66, as for any input that cannot be
/// opened). Creating it would answer from an empty database as if all were well: a mistyped
/// `--db`, or cron without SUBRECON_DB, would look healthy.
public struct MissingDatabase: OperatorFacingError {
    public var path: String
    /// Where the path came from: `--db`, `SUBRECON_DB`, the default, or `db copy`'s SOURCE.
    public var origin: String

    public var exitStatus: ExitStatus { .unreadableInput }
    public var description: String {
        "no database at \(path) (\(origin)); this command only reads one and creates nothing "
            + "(`subrecon import` or `subrecon db migrate` creates a new one)"
    }
}
