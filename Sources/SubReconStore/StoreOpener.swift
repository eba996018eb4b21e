import Foundation
import Logging
import NIOSSL
import PostgresNIO
import SubReconModel

/// Opens the store SUBRECON_DB / --db names: a SQLite file, or a PostgreSQL database.
public enum StoreOpener {
    /// - Parameter environment: `SUBRECON_CLAIM_TIMEOUT` (seconds a claim lasts unless renewed,
    ///   default 120) and `SUBRECON_DB_RETRY_SECONDS` (how long an unreachable PostgreSQL is
    ///   retried before the command fails with exit 74, default 120).
    /// - Parameter latencyBound: a long-running server answering requests after each commit (the
    ///   notification receiver): on SQLite, WAL checkpoints run off the writer (`WALCheckpointer`).
    /// - Parameter createIfMissing: false for a command that only reads: a SQLite file that does
    ///   not exist is not created (the caller refuses it first; this covers a file removed between).
    public static func open(
        _ location: DatabaseLocation, environment: [String: String], claimTimeoutSeconds: Int? = nil,
        latencyBound: Bool = false, createIfMissing: Bool = true, logger: Logger
    ) async throws(StoreOpenFailure) -> any SubscriptionStore {
        switch location {
        case .sqlite(let path):
            do {
                return try AppDatabase.open(path: path, createIfMissing: createIfMissing, checkpointsOffTheWriter: latencyBound)
            } catch {
                // As ever on SQLite: a file that cannot be opened is a usage error.
                throw StoreOpenFailure(message: error.description, exitCode: ExitStatus.configuration.rawValue)
            }
        case .postgres(let postgres):
            let claimTimeout = try seconds(
                claimTimeoutSeconds, environment["SUBRECON_CLAIM_TIMEOUT"], name: "SUBRECON_CLAIM_TIMEOUT", default: 120)
            let retry = try seconds(
                nil, environment["SUBRECON_DB_RETRY_SECONDS"], name: "SUBRECON_DB_RETRY_SECONDS", default: 120)
            let configuration: PostgresClient.Configuration
            let first: PostgresConnection.Configuration
            do {
                configuration = try clientConfiguration(postgres)
                first = try connectionConfiguration(postgres)
            } catch {
                throw StoreOpenFailure(message: "\(postgres.masked): \(error)", exitCode: ExitStatus.configuration.rawValue)
            }
            do {
                return try await PostgresStore.open(
                    configuration: configuration, firstConnection: first, maskedURL: postgres.masked, claimTimeoutMs: Int64(claimTimeout) * 1000,
                    retryWindow: .seconds(retry), logger: logger)
            } catch {
                throw StoreOpenFailure(
                    message: "\(postgres.masked): \(error.description)", exitCode: (error.isConfiguration ? ExitStatus.configuration : .databaseFailed).rawValue)
            }
        }
    }

    /// The driver's settings for `location`: `require` encrypts without checking the server's
    /// certificate (libpq's meaning); `verify-full` checks it and the host name, against
    /// `sslrootcert` or the system's roots.
    public static func clientConfiguration(_ location: PostgresLocation) throws -> PostgresClient.Configuration {
        PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: tlsSettings(location).map { .require($0) } ?? .disable)
    }

    /// The same settings for one connection outside the pool (the first one, whose errors say
    /// whether the server refused the password or could not be reached).
    package static func connectionConfiguration(_ location: PostgresLocation) throws -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: try tlsSettings(location).map { .require(try NIOSSLContext(configuration: $0)) } ?? .disable)
    }

    package static func tlsSettings(_ location: PostgresLocation) -> TLSConfiguration? {
        switch location.tls {
        case .disable:
            return nil
        case .require:
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.certificateVerification = .none
            return settings
        case .verifyFull(let rootCertificatePath):
            var settings = TLSConfiguration.makeClientConfiguration()
            settings.certificateVerification = .fullVerification
            if let rootCertificatePath { settings.trustRoots = .file(rootCertificatePath) }
            return settings
        }
    }

    package static func seconds(_ flag: Int?, _ variable: String?, name: String, default value: Int) throws(StoreOpenFailure) -> Int {
        if let flag { return flag }
        guard let variable else { return value }
        guard let seconds = Int(variable.trimmingCharacters(in: .whitespaces)), seconds >= 1 else {
            throw StoreOpenFailure(
                message: "\(name) must be a whole number of seconds (1 or more), not \"\(variable)\"",
                exitCode: ExitStatus.configuration.rawValue)
        }
        return seconds
    }
}

/// Why no store could be opened, with the exit code the contract gives it: 2 for what the
/// operator must fix in the settings, 74 for a database that failed or cannot be reached.
public struct StoreOpenFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var exitCode: Int32
    public var description: String { message }
}
