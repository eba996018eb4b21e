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
        let text = logLevel ?? environment["SUBRECON_LOG_LEVEL"] ?? "notice"
        let level = Logger.Level(rawValue: text) ?? .notice
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        return Logger(label: "subrecon")
    }

    func openDatabase() throws -> AppDatabase {
        do {
            return try AppDatabase.open(path: resolvedDatabasePath)
        } catch {
            Console.error(error.description)
            throw ExitCode(2)
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
