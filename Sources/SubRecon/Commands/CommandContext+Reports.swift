import Foundation
import SubReconModel
import SubReconStore

extension CommandContext {
    /// The flags of `subrecon report`, as given; nil when not given.
    public struct ReportFlags: Sendable {
        public var runID: Int64?
        public var since: String?
        public var until: String?
        public var within: String?
        public var by: String?
        public var environment: String?
        public var toleranceDays: Int?
        /// `--app`, repeated.
        public var apps: [String]
        /// `--all` (unrecorded only).
        public var all = false
        /// `--type` (events only).
        public var eventType: String?

        public init(
            runID: Int64? = nil, since: String? = nil, until: String? = nil, within: String? = nil, by: String? = nil,
            environment: String? = nil, toleranceDays: Int? = nil, apps: [String] = []
        ) {
            self.apps = apps
            self.runID = runID
            self.since = since
            self.until = until
            self.within = within
            self.by = by
            self.environment = environment
            self.toleranceDays = toleranceDays
        }
    }

    /// `subrecon report KIND`: the report to `outputPath` (written atomically) or to standard
    /// output. The flags are checked before the database is opened, so a usage error creates or
    /// migrates nothing. For apple-parity, returns the outcome, whose summary the command shows.
    public func report(_ kind: ReportKind, flags: ReportFlags, outputPath: String?) async throws -> AppleParityOutcome? {
        var options: ReportOptions
        do {
            options = try ReportOptions.parse(
                kind: kind, runID: flags.runID, since: flags.since, until: flags.until, within: flags.within, by: flags.by,
                environment: flags.environment, toleranceDays: flags.toleranceDays, nowMs: clock())
            if flags.all { try options.listEveryFoundPeriod(kind: kind) }
            if let type = flags.eventType { try options.selectEventType(type, kind: kind) }
        } catch {
            // Whatever the flags got wrong is a usage error.
            throw ConfigurationError.other(error.description)
        }
        (options.defaultBundleID, options.apps) = try reportApps(flags.apps)
        options.webhookApps = try webhookSettings().deliveringApps
        for app in try appsFile()?.apps ?? [] {
            for product in app.products where options.productApps[product] == nil { options.productApps[product] = app.bundleID }
        }
        if !options.apps.isEmpty, !kind.narrowsByApp {
            throw ConfigurationError.other(
                "--app applies to \(ReportKind.allCases.filter(\.narrowsByApp).map(\.rawValue).joined(separator: ", ")); "
                    + "\(kind.rawValue) lists runs, and a run spans every app")
        }
        if kind == .dashboard, outputPath == nil {
            throw ConfigurationError.other(
                "the dashboard is one HTML file: give --output FILE.html (e.g. subrecon report dashboard --output dashboard.html)")
        }
        let store = try await openStore()
        let exporter = ReportExporter(store: store)
        let standardOutput = output.standardOutput
        if kind == .appleParity {
            var outcome: AppleParityOutcome?
            if let outputPath {
                try await AtomicFile.write(to: outputPath) { handle in
                    outcome = try await exporter.exportAppleParity(options: options) { handle.write($0) }
                }
            } else {
                outcome = try await exporter.exportAppleParity(options: options) { standardOutput.write($0) }
            }
            await store.close()
            return outcome
        } else if kind == .dashboard, let outputPath {
            try await AtomicFile.write(to: outputPath) { handle in
                try await exporter.exportDashboard(options: options) { handle.write($0) }
            }
        } else if let outputPath {
            try await AtomicFile.write(to: outputPath) { handle in
                try await exporter.export(kind, options: options) { handle.write($0) }
            }
        } else {
            try await exporter.export(kind, options: options) { standardOutput.write($0) }
        }
        return nil
    }

    /// The bundle ID a row that names no app stands for (the one app's, when the deployment names
    /// it) and the apps `--app` keeps, each one the deployment knows.
    func reportApps(_ given: [String]) throws(ConfigurationError) -> (defaultBundleID: String?, apps: [String]) {
        let known: [String]
        if let file = try appsFile() {
            known = file.bundleIDs
        } else {
            known = Settings.nonEmpty(environment["SUBRECON_BUNDLE_ID"]).map { [$0.trimmingCharacters(in: .whitespaces)] } ?? []
        }
        return (known.count == 1 ? known[0] : nil, try Settings.appFilter(given, apps: known))
    }

    /// `subrecon status`: the operator's one screen, read in one snapshot (never calls Apple).
    public func status() async throws -> StatusReport {
        // Status needs no app's settings, but a broken apps file breaks tonight's run: refused
        // here as every other command refuses it (exit 2, naming the app and the problem).
        _ = try appsFile()
        // So is a broken webhook setting: the next run would refuse it. Its endpoints say which
        // apps' events are sent.
        let events = try eventDestinations(try webhookSettings())
        let store = try await openStore()
        do {
            return try await StatusReport.load(from: store, nowMs: clock(), events: events)
        } catch {
            throw DatabaseFailure(error)
        }
    }

    /// Which apps' events `webhooks` sends, and the bundle ID an event naming no app stands for
    /// (as `report events` names it): for status and the metrics.
    public func eventDestinations(_ webhooks: WebhookSettings) throws(ConfigurationError) -> EventBacklog.Destinations {
        EventBacklog.Destinations(apps: webhooks.deliveringApps, defaultBundleID: try reportApps([]).defaultBundleID)
    }
}
