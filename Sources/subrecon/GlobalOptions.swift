import ArgumentParser
import Foundation
import Logging
import SubRecon

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

    /// Several apps in one deployment: one JSON object per app with its credentials and settings.
    @Option(help: "A JSON file listing every app with its own credentials and settings (SUBRECON_APPS_FILE; default: the single-app settings).")
    var appsFile: String?

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

    /// What the command's library entry point starts from: sets up logging (once for the
    /// process) and passes the environment, the database flags and the console.
    func context() -> CommandContext {
        CommandContext(
            environment: environment, databaseFlag: databasePath, databasePasswordFileFlag: dbPasswordFile,
            logger: makeLogger(), output: Console.output, appsFileFlag: appsFile)
    }
}
