import AppleSignedData
import Foundation
import Testing
@testable import SubRecon
import SubReconModel
@_spi(RawSQL) import SubReconStore
import SubReconTestSupport

/// `subrecon webhooks deliver | replay | skip` through the built binary, against a real receiver
/// on loopback: exit codes, the signed bytes, replay with the same id and body, skip, and kill -9
/// of a deliverer mid-delivery followed by a second one that delivers everything.
@Suite(.serialized) struct WebhooksBinaryTests {
    /// A world with a run's events stored, its store closed for the binary; the environment that
    /// delivers to `url` with a fresh secret file.
    static func prepared(_ world: TestWorld, url: String, extra: [String: String] = [:]) async throws
        -> (environment: [String: String], secret: String)
    {
        try await world.importScenarios([.active, .refunded, .trialActive, .expired, .gracePeriod])
        _ = try await world.run()
        await world.store.close()
        let secret = WebhookSecret.generate()
        let secretFile = world.folder + "/webhook.secret"
        FileManager.default.createFile(atPath: secretFile, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600])
        let environment = world.storeEnvironment.merging(
            ["SUBRECON_WEBHOOK_URL": url, "SUBRECON_WEBHOOK_SECRET_FILE": secretFile].merging(extra) { $1 }) { $1 }
        return (environment, secret)
    }

    static func eventCount(_ world: TestWorld) async throws -> Int {
        let reopened = try AppDatabase.open(path: world.databasePath)
        return Int(try await reopened.withReadSnapshot { db in try await db.integer("SELECT COUNT(*) AS value FROM events") } ?? 0)
    }

    @Test func deliverSendsEverythingSignedAndExitsZero() async throws {
        try await TestWorld.make().closing { world in
            try await WebhookReceiver.with { receiver in
                let (environment, secret) = try await Self.prepared(world, url: receiver.url)
                let events = try await Self.eventCount(world)
                #expect(events >= 5)

                let result = try await SubreconBinary.run(["webhooks", "deliver", "--max-seconds", "5"], environment: environment)
                #expect(result.exitCode == 0, "\(result.stderr)")
                #expect(result.stdout == "webhooks: \(events) delivered, 0 failed attempt(s) to retry, 0 dead; 0 event(s) pending\n")
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret))
                #expect(receiver.requests.count == events)
                let verdicts = try await StandardWebhooksVerifier.verified(
                    receiver.requests.map { StandardWebhooksVerifier.Delivery(secret: secret, headers: $0.headers, body: $0.body) })
                #expect(verdicts == Array(repeating: true, count: events))
                #expect(receiver.requests.allSatisfy { $0.header("user-agent") == "subrecon/" + SubReconVersion.text })

                let report = try await SubreconBinary.run(["report", "events"], environment: environment)
                let rows = CSVTable.parse(report.stdout)
                #expect(rows.count == events)
                #expect(rows.allSatisfy { $0["delivery_state"] == "delivered" && $0["attempts"] == "1" && $0["last_status"] == "200" })
                #expect(rows.allSatisfy { $0["delivered_at"]?.isEmpty == false })

                // Nothing left: a second deliver sends nothing and exits 0.
                let again = try await SubreconBinary.run(["webhooks", "deliver"], environment: environment)
                #expect(again.exitCode == 0)
                #expect(receiver.requests.count == events)
            }
        }
    }

    @Test func aFailingEndpointExitsOnePromptlyAndReplaySendsTheSameBytes() async throws {
        try await TestWorld.make().closing { world in
            try await WebhookReceiver.with(behaviour: { _ in .status(503) }) { receiver in
                let (environment, _) = try await Self.prepared(
                    world, url: receiver.url, extra: ["SUBRECON_WEBHOOK_RETRY_SCHEDULE": "0,3600"])
                let events = try await Self.eventCount(world)

                let started = ContinuousClock.now
                let failing = try await SubreconBinary.run(["webhooks", "deliver", "--max-seconds", "30"], environment: environment)
                #expect(failing.exitCode == 1, "\(failing.stderr)")
                #expect(ContinuousClock.now - started < .seconds(20), "exits at once when the next retry is an hour away")
                #expect(failing.stdout.contains("0 delivered, \(events) failed attempt(s) to retry, 0 dead; \(events) event(s) pending"))
                let firstBodies = Dictionary(
                    receiver.requests.map { ($0.header("webhook-id") ?? "", $0.bodyText) }, uniquingKeysWith: { a, _ in a })
                #expect(firstBodies.count == events)

                let report = CSVTable.parse(try await SubreconBinary.run(["report", "events"], environment: environment).stdout)
                #expect(report.allSatisfy { $0["delivery_state"] == "pending" && $0["attempts"] == "1" && $0["last_status"] == "503" })

                // The endpoint is fixed; replay makes them due now (the schedule starts again).
                receiver.setBehaviour { _ in .status(200) }
                let replay = try await SubreconBinary.run(["webhooks", "replay", "--since", "2000-01-01"], environment: environment)
                #expect(replay.exitCode == 0, "\(replay.stderr)")
                #expect(replay.stdout == "replayed \(events) event(s): pending again\n")
                let delivered = try await SubreconBinary.run(["webhooks", "deliver"], environment: environment)
                #expect(delivered.exitCode == 0, "\(delivered.stderr)")
                let second = receiver.requests.dropFirst(events)
                #expect(second.count == events)
                for request in second {
                    let id = try #require(request.header("webhook-id"))
                    #expect(firstBodies[id] == request.bodyText, "a redelivery carries the same id and the same bytes")
                }
                // An unknown id and a malformed one.
                let unknown = try await SubreconBinary.run(
                    ["webhooks", "replay", "--event", UUID().uuidString.lowercased()], environment: environment)
                #expect(unknown.exitCode == 0 && unknown.stdout == "replayed 0 event(s): pending again\n")
                let malformed = try await SubreconBinary.run(["webhooks", "replay", "--event", "nope"], environment: environment)
                #expect(malformed.exitCode == 2 && malformed.stderr.contains("--event nope"))
                let neither = try await SubreconBinary.run(["webhooks", "replay"], environment: environment)
                #expect(neither.exitCode == 2)
            }
        }
    }

    @Test func skipLeavesTheBacklogUnsent() async throws {
        try await TestWorld.make().closing { world in
            try await WebhookReceiver.with { receiver in
                let (environment, _) = try await Self.prepared(world, url: receiver.url)
                let events = try await Self.eventCount(world)
                let skip = try await SubreconBinary.run(["webhooks", "skip", "--until", "2100-01-01"], environment: environment)
                #expect(skip.exitCode == 0, "\(skip.stderr)")
                #expect(skip.stdout == "skipped \(events) pending event(s)\n")
                let deliver = try await SubreconBinary.run(["webhooks", "deliver"], environment: environment)
                #expect(deliver.exitCode == 0)
                #expect(receiver.requests.isEmpty)
                let rows = CSVTable.parse(try await SubreconBinary.run(["report", "events"], environment: environment).stdout)
                #expect(rows.allSatisfy { $0["delivery_state"] == "skipped" })
                let bad = try await SubreconBinary.run(["webhooks", "skip", "--until", "yesterday"], environment: environment)
                #expect(bad.exitCode == 2 && bad.stderr.contains("--until yesterday"))
            }
        }
    }

    /// kill -9 while attempts are in flight; the next deliverer (after the leases expire) sends
    /// every event, a resent one with the same id and bytes, and nothing is lost.
    @Test func killedMidDeliveryThenDeliveredAgainLosesNothing() async throws {
        try await TestWorld.make().closing { world in
            try await WebhookReceiver.with(behaviour: { _ in .slow(seconds: 1, status: 200) }) { receiver in
                let (environment, _) = try await Self.prepared(
                    world, url: receiver.url,
                    extra: ["SUBRECON_CLAIM_TIMEOUT": "1", "SUBRECON_WEBHOOK_CONCURRENCY": "2"])
                let events = try await Self.eventCount(world)
                let victim = try SubreconBinary.start(["webhooks", "deliver"], environment: environment, folder: world.folder)
                // Two attempts have reached the receiver, whose answers are a second away.
                _ = try await receiver.waitForRequests(count: 2, timeout: .seconds(20))
                kill(victim.processIdentifier, SIGKILL)
                _ = await SubreconBinary.wait(victim)
                #expect(receiver.requests.count < events, "the kill landed mid-delivery")
                try await Task.sleep(for: .milliseconds(1_500))  // the dead deliverer's leases expire

                let again = try await SubreconBinary.run(["webhooks", "deliver"], environment: environment)
                #expect(again.exitCode == 0, "\(again.stderr)")
                let byID = Dictionary(grouping: receiver.requests) { $0.header("webhook-id") ?? "" }
                #expect(byID.count == events, "every event delivered")
                #expect(byID.values.contains { $0.count == 2 }, "the attempts the kill cut short were sent again")
                for (_, requests) in byID {
                    #expect(Set(requests.map(\.bodyText)).count == 1, "a resent event carries the same bytes")
                }
                let rows = CSVTable.parse(try await SubreconBinary.run(["report", "events"], environment: environment).stdout)
                #expect(rows.count == events && rows.allSatisfy { $0["delivery_state"] == "delivered" })
            }
        }
    }

    /// Two apps of an apps file, each its own URL and secret; a third app without a URL keeps
    /// its events recorded, unsent, with an empty delivery state.
    @Test func eachAppsEventsGoToItsOwnURLSignedWithItsOwnSecret() async throws {
        try await TestWorld.make().closing { world in
            let apps = ["com.example.news", "com.example.cooking", "com.example.quiet"]
            var drafts: [EventDraft] = []
            for app in apps {
                for user in 0..<3 { drafts.append(WebhookDeliveryTests.draft(user: "\(app)-\(user)", otid: "700", app: app)) }
            }
            try await WebhookDeliveryTests.write(drafts, to: world.store)
            await world.store.close()
            try await WebhookReceiver.with { news in
                try await WebhookReceiver.with { cooking in
                    var secrets: [String: String] = [:]
                    var objects: [String] = []
                    for (app, receiver) in [(apps[0], news), (apps[1], cooking)] {
                        let secret = WebhookSecret.generate()
                        secrets[app] = secret
                        let file = world.folder + "/\(app).secret"
                        FileManager.default.createFile(
                            atPath: file, contents: Data((secret + "\n").utf8), attributes: [.posixPermissions: 0o600])
                        objects.append(
                            #"{"bundle_id": "\#(app)", "shared_secret_file": "s", "webhook_url": "\#(receiver.url)", "webhook_secret_file": "\#(file)"}"#)
                    }
                    objects.append(#"{"bundle_id": "\#(apps[2])", "shared_secret_file": "s"}"#)
                    let appsFile = world.folder + "/apps.json"
                    FileManager.default.createFile(atPath: appsFile, contents: Data(#"{"apps": [\#(objects.joined(separator: ", "))]}"#.utf8))
                    let environment = world.storeEnvironment.merging(["SUBRECON_APPS_FILE": appsFile]) { $1 }

                    let result = try await SubreconBinary.run(["webhooks", "deliver"], environment: environment)
                    #expect(result.exitCode == 0, "\(result.stderr)")
                    for (app, receiver) in [(apps[0], news), (apps[1], cooking)] {
                        let ids = Set(receiver.requests.compactMap { $0.header("webhook-id") })
                        #expect(ids == Set(drafts.filter { $0.app == app }.map(\.id)), "\(app)'s events, and only them")
                        let verdicts = try await StandardWebhooksVerifier.verified(
                            receiver.requests.map {
                                StandardWebhooksVerifier.Delivery(secret: secrets[app]!, headers: $0.headers, body: $0.body)
                            })
                        #expect(verdicts.allSatisfy { $0 } && verdicts.count == 3)
                    }
                    let rows = CSVTable.parse(try await SubreconBinary.run(["report", "events"], environment: environment).stdout)
                    #expect(rows.filter { $0["bundle_id"] == apps[2] }.map { $0["delivery_state"] } == ["", "", ""])
                    #expect(rows.filter { $0["bundle_id"] != apps[2] }.allSatisfy { $0["delivery_state"] == "delivered" })
                }
            }
        }
    }

    /// SIGTERM: the attempts in flight finish and are recorded, no lease is left behind, exit 143.
    @Test func sigtermLetsTheAttemptsInFlightFinish() async throws {
        try await TestWorld.make().closing { world in
            try await WebhookReceiver.with(behaviour: { _ in .slow(seconds: 1, status: 200) }) { receiver in
                let (environment, _) = try await Self.prepared(
                    world, url: receiver.url, extra: ["SUBRECON_WEBHOOK_CONCURRENCY": "2"])
                let events = try await Self.eventCount(world)
                let deliverer = try SubreconBinary.start(["webhooks", "deliver"], environment: environment, folder: world.folder)
                _ = try await receiver.waitForRequests(count: 2, timeout: .seconds(20))
                kill(deliverer.processIdentifier, SIGTERM)
                #expect(await SubreconBinary.wait(deliverer) == 143)
                let reopened = try AppDatabase.open(path: world.databasePath)
                let (delivered, leased) = try await reopened.withReadSnapshot { db in
                    (
                        try await db.integer("SELECT COUNT(*) AS value FROM events WHERE state = 'delivered'") ?? -1,
                        try await db.integer("SELECT COUNT(*) AS value FROM events WHERE lease_token IS NOT NULL") ?? -1
                    )
                }
                #expect(delivered == Int64(receiver.requests.count), "every attempt that reached the receiver is recorded")
                #expect(delivered >= 2 && delivered < Int64(events))
                #expect(leased == 0)
            }
        }
    }

    /// SUBRECON_EVENT_RETENTION_DAYS=0: the next nightly run, with nothing due, removes delivered,
    /// dead and skipped events; a pending one stays.
    @Test func retentionZeroRemovesSettledEventsAtTheNextRunAndKeepsPendingOnes() async throws {
        try await TestWorld.make().closing { world in
            world.clock.set(nowMs: WallClock.unixMilliseconds())
            try await WebhookReceiver.with { receiver in
                let (environment, _) = try await Self.prepared(world, url: receiver.url)
                let events = try await Self.eventCount(world)
                #expect(try await SubreconBinary.run(["webhooks", "deliver"], environment: environment).exitCode == 0)
                // One more event, still pending.
                let reopened = try AppDatabase.open(path: world.databasePath)
                try await WebhookDeliveryTests.write([WebhookDeliveryTests.draft(user: "u-late", otid: "900")], to: reopened)
                let run = environment.merging([
                    "SUBRECON_SHARED_SECRET": TestWorld.secret, "SUBRECON_PRODUCTION_URL": world.simulator.productionURL,
                    "SUBRECON_SANDBOX_URL": world.simulator.sandboxURL, "SUBRECON_EVENT_RETENTION_DAYS": "0",
                ]) { $1 }
                let nightly = try await SubreconBinary.run(["run"], environment: run)
                #expect(nightly.exitCode == 0, "\(nightly.stderr)")
                #expect(nightly.stdout.contains(" 0 receipts,"), "nothing was due: \(nightly.stdout)")
                let rows = CSVTable.parse(try await SubreconBinary.run(["report", "events"], environment: environment).stdout)
                #expect(rows.map { $0["user_id"] } == ["u-late"] && rows.first?["delivery_state"] == "pending")
                #expect(events > 0)
                let bad = try await SubreconBinary.run(["run"], environment: run.merging(["SUBRECON_EVENT_RETENTION_DAYS": "-1"]) { $1 })
                #expect(bad.exitCode == 2 && bad.stderr.contains("SUBRECON_EVENT_RETENTION_DAYS"))
            }
        }
    }

    @Test func deliverWithoutAWebhookIsAConfigurationError() async throws {
        try await TestWorld.make().closing { world in
            await world.store.close()
            let result = try await SubreconBinary.run(["webhooks", "deliver"], environment: world.storeEnvironment)
            #expect(result.exitCode == 2)
            #expect(result.stderr.contains("SUBRECON_WEBHOOK_URL"))
        }
    }
}
