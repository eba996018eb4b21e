import ArgumentParser
import Foundation
import Logging
import SubRecon

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    /// The SQLite database (SUBRECON_DB; default ./subrecon.sqlite).
    @Option(name: .customLong("db"), help: "The SQLite database (SUBRECON_DB; default ./subrecon.sqlite).")
    var databasePath: String?

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

    var resolvedDatabasePath: String { Settings.databasePath(environment: environment, flag: databasePath) }

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
                var handler = StreamLogHandler.standardError(label: label)
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

    /// The store SUBRECON_DB / --db names: a SQLite file, or a PostgreSQL URL.
    func openStore(logger: Logger? = nil) async throws -> any SubscriptionStore {
        do {
            return try await StoreOpener.open(
                resolvedDatabasePath, environment: environment, logger: logger ?? Logger(label: "subrecon"))
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
