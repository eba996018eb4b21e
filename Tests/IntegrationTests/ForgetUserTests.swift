import AppStoreSimulator
import Foundation
import Logging
import Testing

@testable import SubRecon
@testable import SubReconModel
@_spi(RawSQL) @testable import SubReconStore

/// `subrecon forget USER_ID`: nothing naming the user survives in any table or report, the
/// ledger's money stays under a pseudonym (revenue and metrics do not move), and a second call
/// changes nothing.
@Suite struct ForgetUserTests {
    static let user = "user-a"

    /// Every text cell of every table that holds `needle`, as "table.column".
    static func cells(holding needle: String, in store: any SubscriptionStore) async throws -> [String] {
        let tables = try await store.tableColumns()
        return try await store.withReadSnapshot { db in
            var found: [String] = []
            for (table, columns) in tables.sorted(by: { $0.key < $1.key }) {
                try await db.forEachRow("SELECT * FROM \(table)", []) { row in
                    // `forget`'s own event names the user until it is delivered (the contract):
                    // the app's backend learns whom to forget from it. Nothing else may.
                    if table == "events", case .text("user.forgotten") = try row.value("type") { return }
                    for column in columns {
                        if case .text(let text) = try row.value(column), text.contains(needle) {
                            found.append("\(table).\(column)")
                        }
                    }
                }
            }
            return found
        }
    }

    func reports(_ world: TestWorld) async throws -> [ReportKind: String] {
        var texts: [ReportKind: String] = [:]
        for kind in ReportKind.allCases where ![.dashboard, .appleParity].contains(kind) {
            let box = DataBox()
            let options = try ReportOptions.parse(
                kind: kind, runID: nil, since: nil, until: nil, within: nil, nowMs: world.clock.nowMs)
            try await ReportExporter(store: world.store).export(kind, options: options) { box.append($0) }
            texts[kind] = box.text
        }
        return texts
    }

    @Test(arguments: StoreKind.allCases) func nothingNamingTheUserSurvivesAndTheMoneyStays(store: StoreKind) async throws {
        try await TestWorld.make(store: store).closing { world in
            // Two users with priced history (the Server API), a notification applied to the first, and
            // a `user` run for them.
            let subscriber = try await NotificationProcessingTests.importedActiveSubscriber(world, id: 1, user: Self.user)
            _ = try await NotificationProcessingTests.importedActiveSubscriber(world, id: 2, user: "user-b")
            #expect(try await world.runServerAPI().exitCode == 0)
            let renewal = world.simulator.makeNotification(.didRenew, for: subscriber)
            _ = await (try world.notificationProcessor()).receive(body: renewal.bodyBytes, source: .receiver)
            #expect(try await world.runServerAPI(.user(Self.user), kind: .user).exitCode == 0)
            #expect(!(try await Self.cells(holding: Self.user, in: world.store)).isEmpty)
            let before = try await reports(world)

            let summary = try await world.store.forgetUser(Self.user, pseudonym: CommandContext.pseudonym())

            #expect(summary.receipts == 1)
            #expect(summary.subscriptions >= 1)
            #expect(summary.ledgerPeriods >= 2)
            #expect(summary.notificationLinks == 1)
            #expect(summary.runs == 1)
            #expect(summary.runItems >= 2)
            #expect(try await Self.cells(holding: Self.user, in: world.store).isEmpty)
            let after = try await reports(world)
            for (kind, text) in after where kind != .events {
                #expect(!text.contains(Self.user), "\(kind) still names the user")
            }
            // The events report keeps only forget's own event about them.
            let naming = CSVTable.parse(after[.events] ?? "").filter { $0["user_id"] == Self.user }
            #expect(naming.map { $0["type"] } == ["user.forgotten"])
            // The money of closed months does not move; the other user is untouched.
            #expect(after[.revenue] == before[.revenue])
            #expect(after[.metrics] == before[.metrics])
            #expect(after[.subscriptions]?.contains("user-b") == true)
            #expect(try await world.store.subscriptions(ofUser: "user-b").count == 1)
            let pseudonyms = try await world.store.withReadSnapshot { db in
                try await db.all("SELECT DISTINCT user_id FROM renewals WHERE user_id <> 'user-b'") { try $0.requiredText("user_id") }
            }
            #expect(pseudonyms.count == 1 && pseudonyms[0].hasPrefix("forgotten-"), "\(pseudonyms)")

            // Idempotent: nothing found the second time, nothing changed.
            let again = try await world.store.forgetUser(Self.user, pseudonym: CommandContext.pseudonym())
            #expect(again.foundNothing)
            #expect(try await reports(world) == after)
        }
    }

    @Test func forgetThroughTheBinary() async throws {
        try await TestWorld.make().closing { world in
            _ = try await NotificationProcessingTests.importedActiveSubscriber(world, id: 1, user: Self.user)
            #expect(try await world.runServerAPI().exitCode == 0)
            await world.store.close()
            let environment = world.storeEnvironment.merging(["SUBRECON_LOG_LEVEL": "trace"]) { $1 }

            let first = try await SubreconBinary.run(["forget", Self.user], environment: environment)
            #expect(first.exitCode == 0, "\(first.stderr)")
            #expect(first.stdout.hasPrefix("forgot the user: 1 receipt(s), 1 subscription(s)"), "\(first.stdout)")
            #expect(!first.stdout.contains(Self.user) && !first.stderr.contains(Self.user), "the output names the user")
            let second = try await SubreconBinary.run(["forget", Self.user], environment: environment)
            #expect(second.exitCode == 0)
            #expect(second.stdout == "nothing is stored for that user; nothing changed\n")
            let reopened = try AppDatabase.open(path: world.databasePath)
            #expect(try await Self.cells(holding: Self.user, in: reopened).isEmpty)
        }
    }
}
