import Foundation
import Logging

/// Opens the store SUBRECON_DB / --db names: a SQLite file path, or a PostgreSQL URL.
public enum StoreOpener {
    public static func open(_ location: String, environment: [String: String], logger: Logger)
        async throws(StoreOpenFailure) -> any SubscriptionStore
    {
        do {
            return try AppDatabase.open(path: location)
        } catch {
            // As before PostgreSQL: a SQLite file that cannot be opened is a usage error.
            throw StoreOpenFailure(message: error.description, exitCode: 2)
        }
    }
}

/// Why no store could be opened, with the exit code the contract gives it: 2 for what the
/// operator must fix in the settings, 74 for a database that failed or cannot be reached.
public struct StoreOpenFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var exitCode: Int32
    public var description: String { message }
}
