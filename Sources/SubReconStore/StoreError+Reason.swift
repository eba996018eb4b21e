import GRDB
import SubReconModel

extension StoreError {
    /// The operator's words for a database error: what SQLite's result code means for them (a
    /// damaged file, a full disk), never the SQL statement that met it (GRDB's description prints
    /// the whole statement); any other error as it describes itself.
    public static func reason(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else {
            return (error as? StoreError)?.description ?? "\(error)"
        }
        let message = error.message ?? "SQLite error \(error.resultCode.rawValue)"
        switch error.resultCode.primaryResultCode {
        case .SQLITE_CORRUPT:
            return "the SQLite file is damaged (\(message)); restore it from a backup (docs/failure-handling.md)"
        case .SQLITE_NOTADB:
            return "the file is not a SQLite database (\(message)); check --db / SUBRECON_DB"
        case .SQLITE_FULL:
            return "the disk is full (\(message))"
        case .SQLITE_IOERR:
            return "the disk could not read or write the file (\(message))"
        case .SQLITE_READONLY, .SQLITE_PERM:
            return "this user may not write the database file or its folder (\(message))"
        case .SQLITE_CANTOPEN:
            return "the file cannot be opened (\(message)); check the path and this user's permissions"
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            return "another process kept the database locked for too long (\(message))"
        default:
            return message
        }
    }
}
