import ArgumentParser
import Foundation
import Logging
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    /// The SQLite database file or a PostgreSQL URL (SUBRECON_DB; default ./subrecon.sqlite).
    @Option(
        name: .customLong("db"),
        help: "The SQLite database file, or a postgres:// URL (SUBRECON_DB; default ./subrecon.sqlite).")
    var databasePath: String?

    /// The PostgreSQL password, kept out of the URL (and so out of `ps`).
    @Option(help: "A file whose first line is the PostgreSQL password (SUBRECON_DB_PASSWORD_FILE).")
    var dbPasswordFile: String?

    /// How much to log on stderr.
    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (SUBRECON_LOG_LEVEL; default notice).")
    var logLevel: String?

    /// text (default) or json: one JSON object per line, for log shippers.
    @Option(help: "Log format on stderr: text or json (SUBRECON_LOG_FORMAT; default text).")
    var logFormat: LogFormat?

    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// The database --db / SUBRECON_DB names, with the password file; warnings go to stderr, a
    /// configuration error ends the process with exit code 2.
    func resolvedDatabase() throws -> DatabaseLocation {
        try resolvedDatabases(named: [nil])[0]
    }

    /// Each database of `texts` (nil: the one --db / SUBRECON_DB names), the password file applying
    /// to whichever is PostgreSQL (`db copy SOURCE TARGET`); each warning shows once.
    func resolvedDatabases(named texts: [String?]) throws -> [DatabaseLocation] {
        var warnings: [String] = []
        var locations: [DatabaseLocation] = []
        do {
            for text in texts {
                locations.append(
                    try Settings.database(
                        environment: environment, flag: text ?? databasePath, passwordFileFlag: dbPasswordFile,
                        warnings: &warnings))
            }
        } catch {
            Console.error(error.description)
            throw ExitCode(.configuration)
        }
        for (index, warning) in warnings.enumerated() where !warnings[..<index].contains(warning) {
            Console.error("warning: " + warning)
        }
        return locations
    }

    func validate() throws {
        if let logLevel, Logger.Level(rawValue: logLevel) == nil {
            throw ValidationError(
                "--log-level must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")), not \"\(logLevel)\"")
        }
    }

    /// Sets up logging once for the process and returns the command's logger.
    func makeLogger() -> Logger {
        Self.bootstrapLogging(
            level: logLevel ?? environment["SUBRECON_LOG_LEVEL"] ?? "notice",
            format: logFormat ?? environment["SUBRECON_LOG_FORMAT"].flatMap(LogFormat.init(rawValue:)) ?? .text)
    }

    static func bootstrapLogging(level text: String, format: LogFormat) -> Logger {
        let level = Logger.Level(rawValue: text) ?? .notice
        LoggingSystem.bootstrap { label in
            switch format {
            case .json:
                return JSONLogHandler(label: label, logLevel: level)
            case .text:
                var handler = DeferredMetadataLogHandler(StreamLogHandler.standardError(label: label))
                handler.logLevel = level
                return handler
            }
        }
        return Logger(label: "subrecon")
    }

    /// A live line on a terminal; a log line every SUBRECON_PROGRESS_INTERVAL seconds (default 30) otherwise.
    func progressReporter(logger: Logger) -> ProgressReporter {
        let interval = environment["SUBRECON_PROGRESS_INTERVAL"].flatMap(Double.init) ?? 30
        return ProgressReporter(isTerminal: ProgressReporter.standardErrorIsTerminal, interval: interval, logger: logger)
    }

    /// Opens `location`, the one `Settings` resolved when the command has them (so its warnings
    /// show once), else the one the options name: a SQLite file, or a PostgreSQL URL.
    func openStore(
        _ location: DatabaseLocation? = nil, logger: Logger? = nil, claimTimeoutSeconds: Int? = nil,
        environment: [String: String]? = nil, latencyBound: Bool = false
    ) async throws -> any SubscriptionStore {
        let location = try location ?? resolvedDatabase()
        do {
            return try await StoreOpener.open(
                location, environment: environment ?? self.environment, claimTimeoutSeconds: claimTimeoutSeconds,
                latencyBound: latencyBound, logger: logger ?? Logger(label: "subrecon"))
        } catch {
            Console.error(error.description)
            throw ExitCode(error.exitCode)
        }
    }
}

/// Writing to the terminal, in one place.
enum Console {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data(("subrecon: " + message + "\n").utf8))
    }

    static func out(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }
}
