import Foundation
import SubReconHTTP
import SubReconModel
import SubReconStore

extension CommandContext {
    /// `subrecon webhooks deliver`: sends what is due now, waits for retries that fall within
    /// `maxSeconds`, then stops. The summary's `pending` is what is left for next time.
    public func deliverWebhooks(_ flags: WebhookSettings.Flags, apps: [String], maxSeconds: Double) async throws
        -> WebhookDeliverySummary
    {
        let settings = try webhookSettings(flags)
        guard settings.isConfigured else {
            throw ConfigurationError.other(
                "no webhook is configured: set SUBRECON_WEBHOOK_URL and SUBRECON_WEBHOOK_SECRET_FILE (or webhook_url and webhook_secret_file in the apps file)")
        }
        guard maxSeconds.isFinite, maxSeconds >= 0, maxSeconds <= 86_400 else {
            throw ConfigurationError.other("--max-seconds must be a number of seconds from 0 to 86400")
        }
        let chosen = try reportApps(apps).apps
        for app in chosen where settings.endpoint(for: app) == nil {
            throw ConfigurationError.other("--app \(app): no webhook_url is configured for that app")
        }
        let caFile = Settings.nonEmpty(environment["SUBRECON_CA_FILE"])
        if let caFile, !FileManager.default.isReadableFile(atPath: caFile) {
            throw ConfigurationError.other("the CA file \(caFile) (SUBRECON_CA_FILE) cannot be read")
        }
        // An event in flight is leased for SUBRECON_CLAIM_TIMEOUT at most, on both stores.
        let leaseSeconds: Int
        do {
            leaseSeconds = try StoreOpener.seconds(
                nil, environment["SUBRECON_CLAIM_TIMEOUT"], name: "SUBRECON_CLAIM_TIMEOUT", default: 120)
        } catch {
            throw ConfigurationError.other(error.message)
        }
        return try await closing(try await openStore()) { store in
            var options = settings.deliveryOptions(leaseMs: Int64(leaseSeconds) * 1000, apps: chosen)
            if !chosen.isEmpty, let every = options.everyApp {
                // One endpoint for the deployment, narrowed to the apps named.
                options.everyApp = nil
                for app in chosen { options.targets[app] = every }
            }
            let transport = CurlTransport(
                maxConnections: options.concurrency, maxResponseBytes: WebhookDeliverer.maxAnswerBytes, caFile: caFile)
            defer { transport.shutdown() }
            // SIGTERM or SIGINT: no new attempt; those in flight finish and are recorded.
            let stopSignal = StopSignal()
            stopSignal.installSignalHandlers()
            let deliverer = WebhookDeliverer(
                store: store, transport: transport, options: options, clock: clock, logger: logger,
                stopReason: { stopSignal.reason })
            do {
                return try await deliverer.run(until: .drained(deadlineMs: clock() + Int64(maxSeconds * 1000)))
            } catch let error as StoreError {
                throw DatabaseFailure(error)
            }
        }
    }

    /// `subrecon webhooks replay`: the event `eventID` names, or those created in `[since, until)`
    /// (`deadOnly`: only dead ones), pending again with a fresh schedule; same id, same body.
    public func replayEvents(eventID: String?, since: String?, until: String?, deadOnly: Bool) async throws -> Int {
        _ = try webhookSettings()
        switch (eventID, since) {
        case (nil, nil): throw ConfigurationError.other("webhooks replay needs --event ID or --since TIME")
        case (.some, .some): throw ConfigurationError.other("webhooks replay takes --event or --since, not both")
        default: break
        }
        if eventID != nil, until != nil { throw ConfigurationError.other("--until goes with --since, not with --event") }
        let sinceMs = try since.map { text throws(ConfigurationError) in try Self.eventTime(text, flag: "--since") }
        let untilMs = try until.map { text throws(ConfigurationError) in try Self.eventTime(text, flag: "--until") }
        if let eventID, UUID(uuidString: eventID) == nil {
            throw ConfigurationError.other("--event \(eventID) is not an event id (a UUID, as report events lists it)")
        }
        return try await closing(try await openStore()) { store in
            do {
                return try await store.replayEvents(
                    eventID: eventID?.lowercased(), sinceMs: sinceMs ?? .min, untilMs: untilMs ?? .max, deadOnly: deadOnly,
                    nowMs: clock())
            } catch let error as StoreError {
                throw DatabaseFailure(error)
            }
        }
    }

    /// `subrecon webhooks skip --until T`: pending events created before T will not be sent.
    public func skipEvents(until: String, apps: [String]) async throws -> Int {
        _ = try webhookSettings()
        let untilMs = try Self.eventTime(until, flag: "--until")
        let chosen = try reportApps(apps).apps
        return try await closing(try await openStore()) { store in
            do {
                return try await store.skipEvents(createdBefore: untilMs, apps: chosen.isEmpty ? nil : chosen)
            } catch let error as StoreError {
                throw DatabaseFailure(error)
            }
        }
    }

    static func eventTime(_ text: String, flag: String) throws(ConfigurationError) -> Int64 {
        guard let ms = ISO8601.milliseconds(from: text) else {
            throw .other("\(flag) \(text) is not a time; use ISO 8601: \(ISO8601.acceptedForms)")
        }
        return ms
    }
}
