import AppStoreSimulator
import Foundation
import Testing

@testable import SubRecon
@testable import SubReconModel
@testable import SubReconAppStore
@testable import SubReconStore

/// Every report kind, byte for byte, against golden files; then the new kinds' meaning, one
/// situation at a time.
///
/// Golden files live in `Tests/IntegrationTests/Golden/` (found through `#filePath`, so no
/// resource bundle is needed). A missing or different file fails the test. To (re)write them after
/// an intended change, run the tests with `SUBRECON_UPDATE_GOLDEN=1` and review the diff:
///
///     SUBRECON_UPDATE_GOLDEN=1 swift test --filter ReportGoldenTests
///
/// The outputs are deterministic: the world's clock is fixed (`TestWorld`, 2026-11-22T06:46:04Z) and
/// only moved by the test, the simulator derives every id from the subscriber id, receipts get
/// ids in import order, and every report sorts its rows.
@Suite struct ReportGoldenTests {
    static let goldenFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden")

    /// Two nightly runs four weeks apart over every scenario, plus one receipt claimed by two users.
    @Test(arguments: StoreKind.allCases) func everyReportMatchesItsGoldenFile(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios(SimulatedScenario.allCases)
            // The `active` account's receipt, handed over again for a second app user (a shared Apple ID).
            let copy = world.receipt(.active, id: 1)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "user-active-second-device", receiptData: copy)], nowMs: world.clock.nowMs)

            let first = try await world.run()
            #expect(first.runID == 1)
            world.clock.advance(byMs: 28 * DuePolicy.day)
            let second = try await world.run(.all)
            #expect(second.runID == 2)
            try await Self.receiveNotifications(world)

            let reports: [(file: String, kind: ReportKind, options: ReportOptions)] = [
                ("subscriptions", .subscriptions, .init()),
                ("renewals", .renewals, .init()),
                ("runs", .runs, .init()),
                ("run-items", .runItems, .init()),
                ("changes", .changes, .init()),
                ("changes-run-1", .changes, .init(runID: 1)),
                ("expiring", .expiring, .init(nowMs: world.clock.nowMs)),
                ("unrecorded", .unrecorded, Self.everyFoundPeriod),
                ("unrecorded-lost-orders", .unrecorded, .init()),
                ("shared", .shared, .init()),
                ("notifications", .notifications, .init()),
                ("revenue", .revenue, .init(nowMs: world.clock.nowMs)),
                ("metrics", .metrics, .init(nowMs: world.clock.nowMs)),
                ("events", .events, .init()),
            ]
            // The runs' worker is this process (`HOST:PID`): the golden file holds a placeholder.
            let worker = "\(ProcessInfo.processInfo.hostName):\(getpid())"
            for report in reports {
                let csv = try await export(world, report.kind, report.options)
                if report.kind == .runs { #expect(csv.contains("," + worker + ",")) }
                let comparable = report.kind == .events ? Self.eventsWithoutIDs(csv) : csv
                try compareWithGolden(comparable.replacingOccurrences(of: "," + worker + ",", with: ",HOST:PID,"), name: report.file)
            }
            // Every CSV kind has a golden file (the dashboard is a page: DashboardBrowserTests;
            // apple-parity needs prices and Apple's reports: AppleParityTests writes Golden/apple-parity.csv).
            #expect(Set(reports.map(\.kind)) == Set(ReportKind.allCases).subtracting([.dashboard, .appleParity]))
        }
    }

    /// `report events` with its random ids and its positions (which follow the order answers
    /// arrived in, several at once) masked, rows in subscription and seq order: what stays the same
    /// from one run of the test to the next.
    static func eventsWithoutIDs(_ csv: String) -> String {
        var lines = csv.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.count > 1 else { return csv }
        let header = lines.removeFirst()
        let rows = lines.filter { !$0.isEmpty }.map { line -> [String] in
            var cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            cells[0] = "POSITION"
            cells[1] = "EVENT-ID"
            return cells
        }.sorted { a, b in (a[4], a[5], Int(a[6]) ?? 0, a[2]) < (b[4], b[5], Int(b[6]) ?? 0, b[2]) }
        return ([header] + rows.map { $0.joined(separator: ",") }).joined(separator: "\n") + "\n"
    }

    /// `report unrecorded --all`.
    static var everyFoundPeriod: ReportOptions {
        var options = ReportOptions()
        options.everyFoundPeriod = true
        return options
    }

    /// The scenarios' notifications since the start (older than the second run: stale), one newer
    /// (applied), one delivered twice, a `TEST`, and one for an account no receipt knows (unmatched).
    static func receiveNotifications(_ world: TestWorld) async throws {
        let processor = try world.notificationProcessor()
        // Not the sandbox account: its 5-minute months would fill the report with renewals.
        let subscribers = SimulatedScenario.allCases.enumerated().filter { $0.element != .sandboxActive }
            .map { index, scenario in scenario.subscriber(id: Int64(index + 1), nowMs: world.startMs, paddingBytes: 200) }
        var bodies = world.simulator.notifications(for: subscribers, afterMs: world.startMs, throughMs: world.clock.nowMs)
            .map(\.bodyBytes)
        let newer = world.simulator.makeNotification(
            .didChangeRenewalStatus, subtype: .autoRenewDisabled, for: subscribers[0], atMs: world.clock.nowMs + 60_000,
            notificationUUID: "00000000-0000-4000-8000-00000000a001")
        bodies += [newer.bodyBytes, newer.bodyBytes]
        bodies.append(
            world.simulator.makeTestNotification(notificationUUID: "00000000-0000-4000-8000-00000000a002").bodyBytes)
        let stranger = SimulatedScenario.active.subscriber(id: 99, nowMs: world.startMs, paddingBytes: 200)
        world.simulator.register(stranger)
        bodies.append(
            world.simulator.makeNotification(.didRenew, for: stranger, notificationUUID: "00000000-0000-4000-8000-00000000a003")
                .bodyBytes)
        for body in bodies {
            let result = await processor.receive(body: body, source: .receiver)
            guard case .stored = result else {
                Issue.record("\(result)")
                return
            }
        }
    }

    // MARK: - changes

    @Test(arguments: StoreKind.allCases) func aRenewalFoundAfterExpiryIsReportedAsRenewed(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active])
            _ = try await world.run()
            let before = try #require(try await world.subscriptions().first)

            world.clock.set(nowMs: before.expiresDateMs + DuePolicy.hour + 1)
            let second = try await world.run()

            #expect(second.count(.updated) == 1)
            let rows = try await table(world, .changes)
            #expect(rows.count == 1)
            let row = try #require(rows.first)
            #expect(row["run_id"] == String(second.runID ?? 0))
            #expect(row["change"] == "renewed")
            #expect(row["old_status"] == "active")
            #expect(row["new_status"] == "active")
            #expect(row["old_expires_at"] == ISO8601.string(fromMilliseconds: before.expiresDateMs))
            #expect(row["new_expires_date_ms"].flatMap { Int64($0) } ?? 0 > before.expiresDateMs)
            #expect(row["changed_at"] == ISO8601.string(fromMilliseconds: world.clock.nowMs))
            // The first run's rows are all `new`, with empty old values.
            let firstRun = try await table(world, .changes, .init(runID: 1))
            #expect(firstRun.map { $0["change"] } == ["new"])
            #expect(firstRun.first?["old_status"] == "")
        }
    }

    /// Scripted accounts whose events fall between runs; each run then shows one kind of change.
    @Test(arguments: StoreKind.allCases) func eachKindOfChangeGetsItsWord(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let now = world.clock.nowMs
            let day = DuePolicy.day
            func monthly(_ configure: (inout SimulatedSubscription) -> Void) -> SimulatedSubscription {
                var s = SimulatedSubscription(
                    productID: SimulatedProducts.proMonthly, periodMs: SimulatedProducts.monthMs, firstPurchaseMs: now - 10 * day)
                configure(&s)
                return s
            }
            // The current period of each ends at now + 20 days.
            let accounts: [(String, SimulatedSubscription)] = [
                ("plain", monthly { _ in }),
                ("refund", monthly { $0.refundAtMs = now + day }),
                ("cancel", monthly { $0.cancelAtMs = now + day }),
                ("upgrade", monthly { $0.upgradeAtMs = now + day; $0.upgradeProductID = SimulatedProducts.premiumMonthly }),
                ("grace", monthly { $0.billingFailureAtMs = now + 19 * day; $0.graceDays = 16 }),
                ("retry", monthly { $0.billingFailureAtMs = now + 19 * day; $0.recoverAtMs = now + 25 * day }),
            ]
            let rows = accounts.enumerated().map { index, account in
                ImportRow(
                    line: index + 2, userID: "user-\(account.0)",
                    receiptData: SimulatedReceipt.encode(
                        SimulatedSubscriber(id: Int64(100 + index), subscriptions: [account.1], paddingBytes: 64)))
            }
            _ = try await world.store.importReceipts(rows, nowMs: now)

            func changes(afterRunAt ms: Int64) async throws -> [String: String] {
                world.clock.set(nowMs: ms)
                let summary = try await world.run(.all)
                #expect(summary.exitCode == 0)
                let rows = try await table(world, .changes)
                #expect(rows.allSatisfy { $0["run_id"] == String(summary.runID ?? 0) })
                return Dictionary(uniqueKeysWithValues: rows.map { ($0["user_id"] ?? "", $0["change"] ?? "") })
            }

            let first = try await changes(afterRunAt: now)
            #expect(first == Dictionary(uniqueKeysWithValues: accounts.map { ("user-\($0.0)", "new") }))

            let second = try await changes(afterRunAt: now + 2 * day)
            #expect(second == ["user-refund": "refunded", "user-cancel": "auto_renew_changed", "user-upgrade": "product_changed"])

            let third = try await changes(afterRunAt: now + 21 * day)
            #expect(third == [
                "user-plain": "renewed", "user-cancel": "expired", "user-grace": "entered_grace_period",
                "user-retry": "entered_billing_retry",
            ])

            let fourth = try await changes(afterRunAt: now + 26 * day)
            #expect(fourth["user-retry"] == "recovered")

            // The product change shows both products side by side.
            let upgrade = try #require(try await table(world, .changes, .init(runID: 2)).first { $0["user_id"] == "user-upgrade" })
            #expect(upgrade["old_product_id"] == SimulatedProducts.proMonthly)
            #expect(upgrade["new_product_id"] == SimulatedProducts.premiumMonthly)
            let cancel = try #require(try await table(world, .changes, .init(runID: 2)).first { $0["user_id"] == "user-cancel" })
            #expect(cancel["old_auto_renew_status"] == "1")
            #expect(cancel["new_auto_renew_status"] == "0")

            // --since/--until select runs by start time: half-open, so runs 2 and 3 only.
            let window = try await table(world, .changes, .init(sinceMs: now + 2 * day, untilMs: now + 26 * day))
            #expect(Set(window.compactMap { $0["run_id"] }) == ["2", "3"])
        }
    }

    @Test(arguments: StoreKind.allCases) func aDryRunRecordsNoChanges(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active, .refunded])
            _ = try await world.run(dryRun: true)
            #expect(try await world.count("SELECT COUNT(*) FROM subscription_changes") == 0)
        }
    }

    // MARK: - shared, unrecorded, expiring

    @Test(arguments: StoreKind.allCases) func oneAppleSubscriptionImportedForTwoUsersIsShared(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            let data = world.receipt(.active, id: 7)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "alice", receiptData: data)], nowMs: world.clock.nowMs)
            world.clock.advance(byMs: DuePolicy.hour)
            _ = try await world.store.importReceipts(
                [ImportRow(line: 2, userID: "bob", receiptData: data)], nowMs: world.clock.nowMs)
            try await world.importScenarios([.expired])  // someone else, not shared
            _ = try await world.run()

            let rows = try await table(world, .shared)

            #expect(rows.map { $0["user_id"] } == ["alice", "bob"], "earliest receipt first")
            #expect(Set(rows.map { $0["original_transaction_id"] }).count == 1)
            #expect(rows.allSatisfy { $0["users"] == "2" && $0["status"] == "active" && $0["entitled"] == "true" })
            #expect(rows.map { $0["receipt_id"] } == ["1", "2"])
            #expect(rows.last?["receipt_imported_at"] == ISO8601.string(fromMilliseconds: world.clock.nowMs))
        }
    }

    @Test(arguments: StoreKind.allCases) func unrecordedListsLostOrdersAndWithAllEveryPeriodARunFound(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            try await world.importScenarios([.active])
            let importedAt = world.clock.nowMs
            _ = try await world.run()
            let before = try #require(try await world.subscriptions().first)
            world.clock.set(nowMs: before.expiresDateMs + DuePolicy.hour + 1)
            let second = try await world.run()

            let rows = try await table(world, .unrecorded, Self.everyFoundPeriod)

            // Requests say `exclude-old-transactions`: the first run sees the current period (billed
            // 3 days before the import), the second the renewal Apple billed after it.
            #expect(rows.count == 2)
            #expect(rows.first?["first_seen_run_id"] == "1")
            let last = try #require(rows.last)
            #expect(last["first_seen_run_id"] == String(second.runID ?? 0))
            #expect(last["run_kind"] == "nightly")
            #expect(last["purchased_after_import"] == "true")
            #expect(rows.dropLast().allSatisfy { $0["purchased_after_import"] == "false" })
            #expect(rows.allSatisfy { $0["receipt_imported_at"] == ISO8601.string(fromMilliseconds: importedAt) })
            // --since filters on first_seen_at.
            var recentOptions = Self.everyFoundPeriod
            recentOptions.sinceMs = importedAt + 1
            let recent = try await table(world, .unrecorded, recentOptions)
            #expect(recent.map { $0["transaction_id"] } == [last["transaction_id"]])
            // Without --all, only the lost orders: the period the receipt itself carried is none.
            let lost = try await table(world, .unrecorded)
            #expect(lost == [last])
            // The dashboard counts the same: the second run's one lost order, none on the first.
            let dashboard = try await world.store.withReadSnapshot { db in
                try await DashboardReader.data(db, options: .init(nowMs: world.clock.nowMs), databaseLabel: "test")
            }
            #expect(dashboard.lostOrdersPerRun.map(\.runID) == [second.runID ?? 0])
            #expect(dashboard.lostOrdersPerRun.map(\.count) == [1])
        }
    }

    @Test(arguments: StoreKind.allCases) func expiringListsEntitledSubscriptionsEndingWithinTheWindow(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            // Ends in: trial 5 days, billingRecovered 5 days, grace period's grace 14 days,
            // activeAutoRenewOff 20 days, active 27 days; expired and refunded never.
            try await world.importScenarios([.trialActive, .billingRecovered, .gracePeriod, .activeAutoRenewOff, .active, .expired, .refunded])
            _ = try await world.run()
            let now = world.clock.nowMs

            let week = try await table(world, .expiring, .init(nowMs: now))
            #expect(Set(week.compactMap { $0["user_id"] }) == ["user-trialActive", "user-billingRecovered"])
            #expect(week.allSatisfy { $0["auto_renew_status"] == "1" })

            let month = try await table(world, .expiring, .init(withinMs: 21 * DuePolicy.day, nowMs: now))
            #expect(month.compactMap { $0["user_id"] }.suffix(2) == ["user-gracePeriod", "user-activeAutoRenewOff"])
            let grace = try #require(month.first { $0["user_id"] == "user-gracePeriod" })
            #expect(grace["access_ends_at"] == grace["grace_period_expires_at"], "grace ends access, not the expiry")
            #expect(month.first { $0["user_id"] == "user-activeAutoRenewOff" }?["auto_renew_status"] == "0")
        }
    }

    // MARK: - status

    @Test func statusCountsSubscriptionsReceiptsRunsAndRepeatedFailures() async throws {
        try await TestWorld.make().closing { world in
            try await world.importScenarios(SimulatedScenario.allCases)
            _ = try await world.run()
            try await world.database.writer.write { db in
                try db.execute(sql: """
                    UPDATE receipts SET consecutive_failures = 4, verification_state = 'failed', last_apple_status = 21199,
                        last_message = 'Apple answered 21199' WHERE user_id = 'user-expired'
                    """)
            }

            let report = try await StatusReport.load(from: world.store, nowMs: world.clock.nowMs)
            let text = report.text()

            let subscriptions = try await world.subscriptions()
            let entitled = subscriptions.filter { $0.status.isEntitled }.count
            #expect(report.subscriptions.total == subscriptions.count)
            #expect(report.subscriptions.entitled == entitled)
            #expect(text.contains("Subscriptions: \(subscriptions.count), entitled \(entitled)"))
            #expect(text.contains("Receipts: \(SimulatedScenario.allCases.count), due now 0"))
            #expect(report.receipts.byState.first { $0.state == "invalid" }?.receipts == 1)
            #expect(report.lastRuns.map(\.runId) == [1])
            #expect(text.contains("completed"))
            #expect(report.failingReceipts.map(\.userId) == ["user-expired"])
            #expect(text.contains("Apple answered 21199"))

            let json = try JSONSerialization.jsonObject(with: report.json()) as? [String: Any]
            let receipts = json?["receipts"] as? [String: Any]
            #expect(receipts?["total"] as? Int == SimulatedScenario.allCases.count)
            let runs = json?["last_runs"] as? [[String: Any]]
            #expect(runs?.first?["run_id"] as? Int == 1)
            #expect((json?["subscriptions"] as? [String: Any])?["by_status"] as? [String: Any] != nil)
        }
    }

    // MARK: - the binary

    @Test func theBinaryPrintsStatusAsJSONAndRejectsBadReportValuesAsUsageErrors() async throws {
        try await TestWorld.make().closing { world in
            let env = ["SUBRECON_DB": world.databasePath]

            let status = try await SubreconBinary.run(["status", "--json"], environment: env)
            #expect(status.exitCode == 0, "\(status.stderr)")
            let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
            #expect((json?["receipts"] as? [String: Any])?["total"] as? Int == 0)
            let text = try await SubreconBinary.run(["status"], environment: env)
            #expect(text.stdout.contains("Subscriptions: 0, entitled 0"))

            let within = try await SubreconBinary.run(["report", "expiring", "--within", "10x"], environment: env)
            #expect(within.exitCode == 2)
            #expect(within.stderr.contains("7d, 36h, 90m"))
            let since = try await SubreconBinary.run(["report", "changes", "--since", "yesterday"], environment: env)
            #expect(since.exitCode == 2)
            #expect(since.stderr.contains("ISO 8601"))
            let misplaced = try await SubreconBinary.run(["report", "shared", "--within", "7d"], environment: env)
            #expect(misplaced.exitCode == 2)
            let ok = try await SubreconBinary.run(["report", "expiring", "--within", "36h"], environment: env)
            #expect(ok.exitCode == 0, "\(ok.stderr)")
            #expect(CSVTable.header(ok.stdout) == ReportKind.expiring.columns)

            let help = try await SubreconBinary.run(["report", "--help"], environment: env)
            for kind in ReportKind.allCases {
                #expect(help.stdout.contains("  \(kind.rawValue)  "), "\(kind.rawValue) listed in report --help")
            }
        }
    }

    // MARK: - helpers

    func export(_ world: TestWorld, _ kind: ReportKind, _ options: ReportOptions = .init()) async throws -> String {
        let box = DataBox()
        try await ReportExporter(store: world.store).export(kind, options: options) { box.append($0) }
        return box.text
    }

    func table(_ world: TestWorld, _ kind: ReportKind, _ options: ReportOptions = .init()) async throws -> [[String: String]] {
        CSVTable.parse(try await export(world, kind, options))
    }

    /// Compares with `Golden/<name>.csv`, or writes it when `SUBRECON_UPDATE_GOLDEN=1`.
    func compareWithGolden(_ csv: String, name: String) throws {
        let url = Self.goldenFolder.appendingPathComponent(name + ".csv")
        if ProcessInfo.processInfo.environment["SUBRECON_UPDATE_GOLDEN"] == "1" {
            try FileManager.default.createDirectory(at: Self.goldenFolder, withIntermediateDirectories: true)
            try Data(csv.utf8).write(to: url, options: .atomic)
            return
        }
        guard let golden = FileManager.default.contents(atPath: url.path) else {
            Issue.record("missing golden file \(url.path); run with SUBRECON_UPDATE_GOLDEN=1 to write it")
            return
        }
        if golden != Data(csv.utf8) {
            let expected = String(decoding: golden, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let actual = csv.split(separator: "\n", omittingEmptySubsequences: false)
            let line = Array(zip(expected, actual)).firstIndex { $0 != $1 } ?? min(expected.count, actual.count)
            Issue.record("""
                \(name).csv differs from its golden file at line \(line + 1) \
                (SUBRECON_UPDATE_GOLDEN=1 rewrites it after an intended change):
                expected: \(line < expected.count ? String(expected[line]) : "<end of file>")
                actual:   \(line < actual.count ? String(actual[line]) : "<end of file>")
                """)
        }
    }
}
