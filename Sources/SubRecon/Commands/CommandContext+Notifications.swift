import Foundation
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Why `notifications import` applied nothing (or stopped).
public enum NotificationImportFailure: OperatorFacingError, Sendable {
    /// The file cannot be read (exit 66).
    case unreadable(path: String, reason: String)
    /// `FILE:LINE: reason` for every bad line (exit 65); nothing was applied.
    case badLines([String])
    /// The store failed while applying (exit 74); what was stored stands.
    case unavailable(String)

    /// Shown at most; the rest are counted.
    static let linesShown = 100

    public var exitStatus: ExitStatus {
        switch self {
        case .unreadable: .unreadableInput
        case .badLines: .badInput
        case .unavailable: .databaseFailed
        }
    }

    public var lines: [String] {
        switch self {
        case .unreadable, .unavailable:
            return [description]
        case .badLines(let problems):
            var lines = Array(problems.prefix(Self.linesShown))
            if problems.count > Self.linesShown { lines.append("... and \(problems.count - Self.linesShown) more") }
            return lines + ["nothing was imported: fix or remove the lines above"]
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .badLines: lines.joined(separator: "\n")
        case .unavailable(let message): message
        }
    }
}

extension CommandContext {
    /// `subrecon notifications import FILE|-`: every line verified first (a file with a bad line
    /// changes nothing), then each stored and applied as the receiver would. A line refused
    /// after all (the file changed underneath) is reported as it happens and skipped. Returns the
    /// summary line.
    public func importNotifications(file: String, flags: NotificationSettings.Flags) async throws -> String {
        // A bad webhook setting is refused before anything, as every command refuses it.
        _ = try webhookSettings()
        let settings = try NotificationSettings.resolve(environment: environment, flags: notificationFlags(flags))
        let bytes: Data
        if file == "-" {
            bytes = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            guard let data = FileManager.default.contents(atPath: file) else {
                let reason = FileManager.default.fileExists(atPath: file) ? "permission denied" : "no such file"
                throw NotificationImportFailure.unreadable(path: file, reason: reason)
            }
            bytes = data
        }
        let name = file == "-" ? "<stdin>" : file
        let lines = NotificationLines.split(Array(bytes))
        let store = try await openStore(ifMissing: .create)
        let processor = NotificationProcessor.live(store: store, settings: settings, logger: logger)
        var problems: [String] = []
        for line in lines {
            if line.bytes.count > NotificationLines.maximumBodyBytes {
                problems.append("\(name):\(line.number): the line is longer than 1 MiB")
            } else if let problem = await processor.check(body: line.bytes) {
                problems.append("\(name):\(line.number): \(problem.message)")
            }
        }
        guard problems.isEmpty else {
            await store.close()
            throw NotificationImportFailure.badLines(problems)
        }
        var counts: [NotificationOutcome: Int] = [:]
        var duplicates = 0
        for line in lines {
            switch await processor.receive(body: line.bytes, source: .import) {
            case .stored(_, let outcome, let duplicate, _):
                if duplicate { duplicates += 1 } else { counts[outcome, default: 0] += 1 }
            case .refused(_, let message):
                output.message("\(name):\(line.number): \(message)")
            case .unavailable(let message):
                await store.close()
                throw NotificationImportFailure.unavailable(message)
            }
        }
        await store.close()
        return NotificationLines.summary(counts, duplicates: duplicates)
    }

    /// `subrecon notifications backfill`: Apple's notification history for the span, every
    /// notification not stored yet stored and applied as the receiver would. Prints the summary
    /// line, also when Apple or the store stopped it early (what was stored stands).
    /// - Parameters:
    ///   - since: ISO 8601, UTC, inclusive; `until` likewise (default now).
    ///   - environment: production or sandbox.
    public func backfillNotifications(since: String, until: String?, environment: String, flags: Settings.Flags)
        async throws
    {
        let nowMs = clock()
        guard let sinceMs = ISO8601.milliseconds(from: since) else {
            throw ConfigurationError.other(
                "--since must be an ISO 8601 date or date-time in UTC: \(ISO8601.acceptedForms); not \"\(since)\"")
        }
        var untilMs = nowMs
        if let until {
            guard let parsed = ISO8601.milliseconds(from: until) else {
                throw ConfigurationError.other(
                    "--until must be an ISO 8601 date or date-time in UTC: \(ISO8601.acceptedForms); not \"\(until)\"")
            }
            untilMs = parsed
        }
        guard let appleEnvironment = ReceiptEnvironment(flag: environment) else {
            throw ConfigurationError.other(ReceiptEnvironment.flagProblem(environment))
        }
        var flags = flags
        // The backfill asks the Server API whatever the run asks; with an apps file, each app's
        // `apple_api` says which apps have the Server API's settings.
        if try appsFile() == nil { flags.appleAPI = AppleAPI.serverAPI.rawValue }
        let job = try await liveWiring(flags, ifMissing: .create)
        try await closing(job.store) { _ in
            guard let notificationSettings = job.settings.notifications else {
                throw ConfigurationError.other("the backfill needs the App Store Server API settings (SUBRECON_API_KEY_FILE, ...)")
            }
            let processor = NotificationProcessor.live(store: job.store, settings: notificationSettings, logger: logger)
            // Apple keeps one history per app: each app asked through the Server API in turn; one
            // app's failure does not keep the others' from being backfilled, and the worst is thrown.
            let apps = job.settings.selectedApps.filter { $0.serverAPI != nil }
            var firstFailure: NotificationBackfill.Failure?
            for app in apps {
                let prefix = apps.count > 1 ? "\(app.name): " : ""
                do {
                    let summary = try await job.backfillNotifications(
                        app: app, processor: processor, sinceMs: sinceMs, untilMs: untilMs, environment: appleEnvironment)
                    output.out(prefix + summary.line + "\n")
                } catch let error as NotificationBackfill.Failure {
                    if let summary = error.summary { output.out(prefix + summary.line + "\n") }
                    // Stopping stops every app's backfill, not just this one.
                    if case .cancelled = error { throw error }
                    if apps.count > 1 { output.warning("\(app.name): \(error)") }
                    if firstFailure == nil || error.exitStatus == .configuration { firstFailure = error }
                }
            }
            if let firstFailure { throw firstFailure }
        }
    }
}
