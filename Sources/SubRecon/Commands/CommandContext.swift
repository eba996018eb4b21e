import AppleSignedData
import Foundation
import Logging
import SubReconModel
import SubReconStore

/// What every command starts from: the process environment, the database flags every command
/// takes (`--db`, `--db-password-file`), the logger and the console. Each command's entry point
/// is a method of this (one file each); it resolves the settings it needs, opens the store and
/// throws only `OperatorFacingError`s, in the order the contract wants (a configuration error,
/// exit 2, before anything is touched).
public struct CommandContext: Sendable {
    public var environment: [String: String]
    /// `--db`: a SQLite file or a PostgreSQL URL (else SUBRECON_DB).
    public var databaseFlag: String?
    /// `--db-password-file` (else SUBRECON_DB_PASSWORD_FILE).
    public var databasePasswordFileFlag: String?
    /// `--apps-file` (else SUBRECON_APPS_FILE).
    public var appsFileFlag: String?
    public var logger: Logger
    public var output: CommandOutput

    public init(
        environment: [String: String], databaseFlag: String?, databasePasswordFileFlag: String?, logger: Logger,
        output: CommandOutput, appsFileFlag: String? = nil
    ) {
        self.appsFileFlag = appsFileFlag
        self.environment = environment
        self.databaseFlag = databaseFlag
        self.databasePasswordFileFlag = databasePasswordFileFlag
        self.logger = logger
        self.output = output
    }

    /// The source of a command's own log lines: the executable's, where they were written before
    /// the commands' work moved into the library, so the logs read as they always have.
    public static let logSource = "subrecon"

    /// The wall clock every command runs on.
    var clock: @Sendable () -> Int64 { { WallClock.unixMilliseconds() } }

    /// Each database of `texts` (nil: the one --db / SUBRECON_DB names), the password file applying
    /// to whichever is PostgreSQL (`db copy SOURCE TARGET`); each warning shows once.
    public func databases(named texts: [String?]) throws(ConfigurationError) -> [DatabaseLocation] {
        var warnings: [String] = []
        var locations: [DatabaseLocation] = []
        for text in texts {
            locations.append(
                try Settings.database(
                    environment: environment, flag: text ?? databaseFlag, passwordFileFlag: databasePasswordFileFlag,
                    warnings: &warnings))
        }
        for (index, warning) in warnings.enumerated() where !warnings[..<index].contains(warning) {
            output.warning(warning)
        }
        return locations
    }

    /// What opening a SQLite database that does not exist does.
    public enum IfMissing: Sendable {
        /// Refuses (`MissingDatabase`, exit 66), creating nothing: the commands that only read.
        case refuse
        /// Creates it and says so on stderr (cron mails it once): the commands that take data in.
        case create
        /// Creates it without a word (`db copy`'s target, which the copy fills).
        case createQuietly
    }

    /// Where --db / SUBRECON_DB's database came from, as the sentences that name it say.
    var databaseOrigin: String {
        if databaseFlag != nil { return "--db" }
        if Settings.nonEmpty(environment["SUBRECON_DB"]) != nil { return "SUBRECON_DB" }
        return "the default: neither --db nor SUBRECON_DB is set"
    }

    /// Runs `body` with `store`, then closes the store whether `body` returned or threw: the close
    /// is awaited here, never left to a task nobody waits for.
    func closing<T>(_ store: any SubscriptionStore, _ body: (any SubscriptionStore) async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body(store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
        return result
    }

    /// Opens `location` (the one `Settings` resolved, when the command has them, so their warnings
    /// show once), else the one the flags name: a SQLite file, or a PostgreSQL URL. A SQLite file
    /// that does not exist is refused unless `ifMissing` creates it; `origin` names where an
    /// explicit `location` came from (default: --db / SUBRECON_DB). PostgreSQL is unaffected: a
    /// database that is not there fails to connect. Throws `ConfigurationError`, `MissingDatabase`
    /// or `StoreOpenFailure`.
    public func openStore(
        _ location: DatabaseLocation? = nil, ifMissing: IfMissing = .refuse, origin: String? = nil,
        claimTimeoutSeconds: Int? = nil, environment: [String: String]? = nil, latencyBound: Bool = false
    ) async throws -> any SubscriptionStore {
        let location = try location ?? databases(named: [nil])[0]
        var created: String?
        if case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            guard ifMissing != .refuse else { throw MissingDatabase(path: path, origin: origin ?? databaseOrigin) }
            if ifMissing == .create { created = path }
        }
        let store = try await StoreOpener.open(
            location, environment: environment ?? self.environment, claimTimeoutSeconds: claimTimeoutSeconds,
            latencyBound: latencyBound, createIfMissing: ifMissing != .refuse, logger: logger)
        if let created {
            output.message("created a new, empty database at \(created) (\(origin ?? databaseOrigin))")
        }
        return store
    }

    /// The apps file (`--apps-file`, else SUBRECON_APPS_FILE), parsed and checked but its secret
    /// files not read: for commands that only need to know the apps (import, reports, notifications).
    public func appsFile(perAppFlagsGiven: [String] = []) throws(ConfigurationError) -> AppsFile? {
        try AppsFile.resolve(environment: environment, flag: appsFileFlag, perAppFlagsGiven: perAppFlagsGiven)
    }

    /// Where and how events are delivered, for a command that does not resolve `Settings` (which
    /// has them): the variables, `flags` and the apps file; their warnings go to the console.
    public func webhookSettings(_ flags: WebhookSettings.Flags = WebhookSettings.Flags()) throws(ConfigurationError)
        -> WebhookSettings
    {
        var warnings: [String] = []
        let settings = try WebhookSettings.resolve(environment: environment, flags: flags, appsFile: appsFile(), warnings: &warnings)
        for warning in warnings { output.warning(warning) }
        return settings
    }

    /// A notification command's flags with the global `--apps-file`.
    public func notificationFlags(_ flags: NotificationSettings.Flags) -> NotificationSettings.Flags {
        var flags = flags
        flags.appsFile = flags.appsFile ?? appsFileFlag
        return flags
    }

    /// The settings of a command that talks to Apple, the database flags included; their
    /// warnings go to the console.
    public func settings(_ flags: Settings.Flags) throws(ConfigurationError) -> Settings {
        var flags = flags
        flags.databasePath = databaseFlag
        flags.databasePasswordFile = databasePasswordFileFlag
        flags.appsFile = appsFileFlag
        let settings = try Settings.resolve(environment: environment, flags: flags)
        for warning in settings.warnings { output.warning(warning) }
        return settings
    }

    /// Settings, database and signal handling for a command that talks to Apple, in the order
    /// the contract wants: a configuration error (exit 2) before anything else happens.
    func liveWiring(_ flags: Settings.Flags, ifMissing: IfMissing = .refuse, claimTimeoutSeconds: Int? = nil) async throws
        -> LiveWiring
    {
        let settings = try settings(flags)
        let store = try await openStore(settings.database, ifMissing: ifMissing, claimTimeoutSeconds: claimTimeoutSeconds)
        let stopSignal = StopSignal()
        stopSignal.installSignalHandlers()
        return LiveWiring(settings: settings, store: store, clock: clock, stopSignal: stopSignal, logger: logger)
    }
}
