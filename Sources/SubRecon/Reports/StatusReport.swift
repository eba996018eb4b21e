import Foundation
import SubReconModel
import SubReconStore

/// The operator's one screen (`subrecon status`): subscriptions by status, receipts due and by
/// verification state, the last runs, the receipts that keep failing, and the events waiting for
/// their webhook. Read in one read transaction, so every number comes from the same moment even
/// while a run writes; rendered as text for people or JSON for tools. Reports never call Apple.
public struct StatusReport: Sendable, Equatable, Codable {
    /// Subscriptions per contract status.
    public struct Subscriptions: Sendable, Equatable, Codable {
        public var total: Int
        /// active + grace_period.
        public var entitled: Int
        /// Every status of the contract's vocabulary, zero counts included, so tools can rely on the keys.
        public var byStatus: [String: Int]
    }

    /// Receipts in one verification state.
    public struct ReceiptState: Sendable, Equatable, Codable {
        public var state: String
        public var receipts: Int
        public var dueNow: Int
    }

    /// Receipts overall, then per verification state.
    public struct Receipts: Sendable, Equatable, Codable {
        public var total: Int
        public var dueNow: Int
        /// In the schema's order: pending, verified, flagged, invalid, account_gone, failed.
        public var byState: [ReceiptState]
    }

    /// One of the latest runs.
    public struct Run: Sendable, Equatable, Codable {
        public var runId: Int64
        public var kind: String
        public var startedAt: String
        public var finishedAt: String?
        /// finished − started; for a run still going, now − started.
        public var durationMs: Int64
        public var status: String
        public var receiptsTotal: Int
        public var verified: Int
        public var updated: Int
        public var unchanged: Int
        /// Apple's "invalid receipt" answers (21003 and the like), without the gone accounts.
        public var invalid: Int
        /// 21010 (verifyReceipt) or the Server API's account-gone answers.
        public var accountGone: Int
        public var failed: Int
        /// Not verified because Apple stopped the run.
        public var skipped: Int
        public var exitCode: Int?
    }

    /// A receipt that failed at least ``StatusReport/repeatedFailureThreshold`` times in a row.
    public struct FailingReceipt: Sendable, Equatable, Codable {
        public var receiptId: Int64
        public var userId: String
        public var consecutiveFailures: Int
        public var lastAppleStatus: Int?
        public var lastAttemptAt: String?
        public var lastMessage: String?
    }

    /// When the report was read, ISO 8601 UTC.
    /// What the notifications receiver (and imports, backfills) stored: an operator sees when
    /// the receiver has gone quiet.
    public struct Notifications: Sendable, Equatable, Codable {
        public var total: Int
        /// The newest `received_at` of a notification the receiver took (nil: none yet).
        public var lastReceivedAt: String?
        /// How long ago that was, in milliseconds.
        public var lastReceivedAgoMs: Int64?
        /// Received in the last 24 hours, any source.
        public var lastDay: Int
        /// Still waiting for a receipt that knows their transaction.
        public var unmatched: Int
    }

    /// The outbox per app: what waits for delivery, what went dead, and apps whose events are
    /// recorded but never sent (no endpoint in this configuration).
    public struct Events: Sendable, Equatable, Codable {
        public struct App: Sendable, Equatable, Codable {
            /// The bundle ID; '' for events naming no app (shown as "(no app)").
            public var app: String
            public var pending: Int64
            public var dead: Int64
            /// When the oldest pending event was created, and how long ago that was; nil when none is pending.
            public var oldestPendingAt: String?
            public var oldestPendingAgeMs: Int64?
            public var webhookConfigured: Bool
        }

        public var apps: [App]
        /// Webhook attempts ever made, by result.
        public var webhookAttemptsDelivered: Int64
        public var webhookAttemptsFailed: Int64

        init(_ backlog: EventBacklog, nowMs: Int64) {
            apps = backlog.apps.map { app in
                App(
                    app: app.app, pending: app.pending, dead: app.dead,
                    oldestPendingAt: app.oldestPendingCreatedAtMs.map(ISO8601.string(fromMilliseconds:)),
                    oldestPendingAgeMs: app.oldestPendingAgeMs(nowMs: nowMs), webhookConfigured: app.webhookConfigured)
            }
            webhookAttemptsDelivered = backlog.attemptsDelivered
            webhookAttemptsFailed = backlog.attemptsFailed
        }

        /// Nothing pending or dead and no attempt ever made: the section is left out of the text.
        var isEmpty: Bool {
            webhookAttemptsDelivered == 0 && webhookAttemptsFailed == 0 && !apps.contains { $0.pending > 0 || $0.dead > 0 }
        }
    }

    public var generatedAt: String
    public var subscriptions: Subscriptions
    public var receipts: Receipts
    /// Newest first: the latest ``runLimit`` nightly runs and the latest ``otherRunLimit`` runs of
    /// other kinds (support lookups), so lookups never push the nightly runs off the screen.
    public var lastRuns: [Run]
    /// How many receipts reach the threshold (``failingReceipts`` shows the worst ``failingLimit``).
    public var failingTotal: Int
    /// Most failures first, at most ``failingLimit``.
    public var failingReceipts: [FailingReceipt]
    public var notifications: Notifications
    public var events: Events

    /// Three nights in a row is no longer bad luck at Apple: someone should look.
    public static let repeatedFailureThreshold = 3
    public static let runLimit = 5
    public static let otherRunLimit = 3
    public static let failingLimit = 10
    static let verificationStates = ["pending", "verified", "flagged", "invalid", "account_gone", "failed"]

    /// Reads the whole status at once, from one snapshot; `events` says which apps' events this
    /// configuration sends (none by default).
    public static func load(
        from store: any SubscriptionStore, nowMs: Int64, events: EventBacklog.Destinations = .none
    ) async throws(StoreError) -> StatusReport {
        do {
            return try await store.withReadSnapshot { db in try await read(db, nowMs: nowMs, events: events) }
        } catch let error as StoreError {
            throw error
        } catch {
            throw .failed(operation: "reading the status", reason: StoreError.reason(error))
        }
    }

    static func read(_ db: any SnapshotQuerying, nowMs: Int64, events: EventBacklog.Destinations) async throws -> StatusReport {
        var byStatus = Dictionary(uniqueKeysWithValues: SubscriptionStatus.allCases.map { ($0.rawValue, 0) })
        for (status, count) in try await db.subscriptionCountsByStatus() { byStatus[status, default: 0] += Int(count) }
        let entitled = SubscriptionStatus.allCases.filter(\.isEntitled).reduce(0) { $0 + (byStatus[$1.rawValue] ?? 0) }

        var states = verificationStates.map { ReceiptState(state: $0, receipts: 0, dueNow: 0) }
        for counted in try await db.receiptCountsByState(dueAt: nowMs) {
            let entry = ReceiptState(state: counted.state, receipts: Int(counted.receipts), dueNow: Int(counted.due))
            if let index = states.firstIndex(where: { $0.state == counted.state }) { states[index] = entry } else { states.append(entry) }
        }

        let runs = try await db.latestRuns(nightly: runLimit, other: otherRunLimit).map { run in
            Run(
                runId: run.id, kind: run.kind, startedAt: ISO8601.string(fromMilliseconds: run.startedAtMs),
                finishedAt: run.finishedAtMs.map(ISO8601.string(fromMilliseconds:)),
                durationMs: max(0, (run.finishedAtMs ?? nowMs) - run.startedAtMs), status: run.status,
                receiptsTotal: Int(run.receiptsTotal), verified: Int(run.verified), updated: Int(run.updated),
                unchanged: Int(run.unchanged), invalid: Int(run.invalid), accountGone: Int(run.accountGone),
                failed: Int(run.failed), skipped: Int(run.skipped), exitCode: run.exitCode.map { Int($0) })
        }

        let failingTotal = try await db.failingReceiptCount(threshold: repeatedFailureThreshold)
        let failing = try await db.failingReceipts(threshold: repeatedFailureThreshold, limit: failingLimit).map { receipt in
            FailingReceipt(
                receiptId: receipt.receiptID, userId: receipt.userID, consecutiveFailures: Int(receipt.consecutiveFailures),
                lastAppleStatus: receipt.lastAppleStatus.map { Int($0) },
                lastAttemptAt: receipt.lastAttemptAtMs.map(ISO8601.string(fromMilliseconds:)), lastMessage: receipt.lastMessage)
        }

        let lastReceived = try await db.lastReceiverDeliveryMs()
        let notifications = Notifications(
            total: Int(try await db.notificationCount()),
            lastReceivedAt: lastReceived.map(ISO8601.string(fromMilliseconds:)),
            lastReceivedAgoMs: lastReceived.map { max(0, nowMs - $0) },
            lastDay: Int(try await db.notificationCount(lastReceivedSince: nowMs - 86_400_000)),
            unmatched: Int(try await db.unmatchedNotificationCount()))

        return StatusReport(
            generatedAt: ISO8601.string(fromMilliseconds: nowMs),
            subscriptions: Subscriptions(total: byStatus.values.reduce(0, +), entitled: entitled, byStatus: byStatus),
            receipts: Receipts(
                total: states.reduce(0) { $0 + $1.receipts }, dueNow: states.reduce(0) { $0 + $1.dueNow },
                byState: states),
            lastRuns: runs, failingTotal: Int(failingTotal), failingReceipts: failing, notifications: notifications,
            events: Events(try await EventBacklog.read(db, destinations: events), nowMs: nowMs))
    }

    // MARK: - Rendering

    /// Pretty-printed JSON with snake_case keys in a stable order, for tools.
    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// The operator's screen, as plain text.
    public func text() -> String {
        var out = "subrecon status at \(generatedAt)\n\n"

        out += "Subscriptions: \(subscriptions.total), entitled \(subscriptions.entitled)\n"
        out += Self.table(
            SubscriptionStatus.allCases.map { ["  " + $0.rawValue, String(subscriptions.byStatus[$0.rawValue] ?? 0)] },
            rightAligned: [1])

        out += "\nReceipts: \(receipts.total), due now \(receipts.dueNow)\n"
        out += Self.table(
            [["  state", "receipts", "due now"]]
                + receipts.byState.map { ["  " + $0.state, String($0.receipts), String($0.dueNow)] },
            rightAligned: [1, 2])

        out += "\nLast runs (newest first; the last \(Self.runLimit) nightly and \(Self.otherRunLimit) user runs):\n"
        if lastRuns.isEmpty {
            out += "  none yet\n"
        } else {
            let header = ["  run", "kind", "started", "duration", "status", "receipts", "verified", "updated",
                          "unchanged", "invalid", "account_gone", "failed", "skipped", "exit"]
            out += Self.table(
                [header]
                    + lastRuns.map { run in
                        ["  \(run.runId)", run.kind, run.startedAt,
                         run.finishedAt == nil ? "\(Self.duration(run.durationMs)) so far" : Self.duration(run.durationMs),
                         run.status, String(run.receiptsTotal), String(run.verified), String(run.updated),
                         String(run.unchanged), String(run.invalid), String(run.accountGone), String(run.failed),
                         String(run.skipped), run.exitCode.map(String.init) ?? "-"]
                    },
                rightAligned: [5, 6, 7, 8, 9, 10, 11, 12, 13])
        }

        out += "\nNotifications: \(notifications.total) stored, \(notifications.lastDay) in the last 24 hours, "
            + "\(notifications.unmatched) unmatched\n"
        if let last = notifications.lastReceivedAt, let ago = notifications.lastReceivedAgoMs {
            out += "  receiver's last notification: \(last) (\(Self.duration(ago)) ago)\n"
        } else {
            out += "  receiver's last notification: none yet\n"
        }

        if !events.isEmpty { out += eventsText() }

        out += "\nReceipts failing again and again (\(Self.repeatedFailureThreshold)+ consecutive failures): \(failingTotal)\n"
        if !failingReceipts.isEmpty {
            out += Self.table(
                [["  receipt", "user", "failures", "apple status", "last attempt", "last message"]]
                    + failingReceipts.map { receipt in
                        ["  \(receipt.receiptId)", Self.printable(receipt.userId), String(receipt.consecutiveFailures),
                         receipt.lastAppleStatus.map(String.init) ?? "-", receipt.lastAttemptAt ?? "-",
                         Self.printable(receipt.lastMessage ?? "")]
                    },
                rightAligned: [2, 3])
            if failingTotal > failingReceipts.count {
                out += "  … and \(failingTotal - failingReceipts.count) more\n"
            }
        }
        return out
    }

    /// Per app: pending, dead, the oldest pending event's age, and whether the app's events are sent.
    private func eventsText() -> String {
        let pending = events.apps.reduce(0) { $0 + $1.pending }
        let dead = events.apps.reduce(0) { $0 + $1.dead }
        var out = "\nEvents: \(pending) pending, \(dead) dead; webhook attempts so far: "
            + "\(events.webhookAttemptsDelivered) delivered, \(events.webhookAttemptsFailed) failed\n"
        // Everything delivered: no app has a line to show.
        guard !events.apps.isEmpty else { return out }
        out += Self.table(
            [["  app", "pending", "dead", "oldest pending", "webhook"]]
                + events.apps.map { app in
                    ["  " + (app.app.isEmpty ? "(no app)" : Self.printable(app.app)), String(app.pending), String(app.dead),
                     app.oldestPendingAgeMs.map { "\(Self.duration($0)) old" } ?? "-",
                     app.webhookConfigured ? "configured" : "no webhook configured: recorded, not sent"]
                },
            rightAligned: [1, 2])
        return out
    }

    /// `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`.
    static func duration(_ ms: Int64) -> String {
        if ms < 1000 { return "\(ms) ms" }
        if ms < 60_000 { return String(format: "%.1f s", Double(ms) / 1000) }
        let seconds = ms / 1000
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        if seconds < 3600 { return "\(seconds / 60) min \(two(seconds % 60)) s" }
        return "\(seconds / 3600) h \(two(seconds % 3600 / 60)) min"
    }

    /// User ids and Apple's messages come from outside: control characters (a terminal escape
    /// sequence, a newline that would fake a table row) are shown as `?`.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map {
            $0.properties.generalCategory == .control ? "?" : $0
        }))
    }

    /// Columns padded to their widest cell, two spaces apart, no trailing spaces.
    static func table(_ rows: [[String]], rightAligned: Set<Int>) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                if column > 0 { line += "  " }
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                line += rightAligned.contains(column) ? pad + cell : cell + pad
            }
            while line.last == " " { line.removeLast() }
            return line + "\n"
        }.joined()
    }
}
