import SubReconModel

/// `subrecon db copy SOURCE TARGET`: every table from one store into another (SQLite to PostgreSQL to
/// move up, or back), in one transaction on the target, so that every report gives the same bytes on
/// both afterwards.
///
/// Both stores are opened (and so migrated) first; a copy between two schema versions, or between
/// stores whose tables or columns differ, is refused. The target must hold no data: a target with
/// rows in any copied table is refused (receipts above all) and left as it was. Rows stream from one
/// read snapshot of the source in keyset pages (`ORDER BY` the primary key, resuming after the
/// last key read), so memory stays flat in the tables' size; columns go across by name.
public struct StoreCopier: Sendable {
    /// A table that is copied, with its primary key (the order pages are read in).
    public struct Table: Sendable, Equatable {
        public let name: String
        public let key: [String]
    }

    /// What a copy moved: the rows of each table, in copy order.
    public struct Report: Sendable, Equatable {
        public struct Count: Sendable, Equatable {
            public let table: String
            public let rows: Int64
        }

        public var schemaVersion: Int
        public var tables: [Count]

        public var totalRows: Int64 { tables.reduce(0) { $0 + $1.rows } }
    }

    /// Every table with data, parents before the tables that refer to them.
    public static let copiedTables: [Table] = [
        Table(name: "receipts", key: ["id"]),
        Table(name: "receipt_versions", key: ["user_id", "receipt_sha256"]),
        Table(name: "runs", key: ["id"]),
        Table(name: "run_items", key: ["run_id", "receipt_id"]),
        Table(name: "subscriptions", key: ["user_id", "original_transaction_id"]),
        Table(name: "renewals", key: ["user_id", "period_key"]),
        Table(name: "subscription_changes", key: ["id"]),
        Table(name: "notifications", key: ["notification_uuid"]),
        Table(name: "ledger_refills", key: ["id"]),
        Table(name: "apple_report_days", key: ["day"]),
        Table(name: "apple_report_rows", key: ["day", "line"]),
        Table(name: "app_account_tokens", key: ["app_account_token"]),
        Table(name: "events", key: ["position"]),
        Table(name: "event_streams", key: ["user_id", "original_transaction_id"]),
        Table(name: "event_positions", key: ["id"]),
        Table(name: "webhook_attempt_totals", key: ["result"]),
    ]

    /// Tables left out, and why. A table in neither list stops the copy: whoever adds a table
    /// decides here whether it moves with the data. (A table named here may not exist yet.)
    public static let tablesNotCopied: [String: String] = [
        "grdb_migrations": "the schema version: both stores are migrated before the copy and must agree",
        "run_lock": "a lease held by a process on the source's machine, meaningless on the target",
        "api_rate": "the running workers' shared Server API schedule, on the source database's clock",
    ]

    /// Rows per page read from the source and per statement written to the target.
    public var pageSize: Int

    public init(pageSize: Int = 500) {
        precondition(pageSize >= 1, "a page holds at least one row")
        self.pageSize = pageSize
    }

    /// Copies `source` into `target`. Refusals (`StoreError.refused`, exit 2) change nothing; any
    /// other failure rolls the target's transaction back.
    public func copy(from source: any SubscriptionStore, to target: any SubscriptionStore) async throws(StoreError) -> Report {
        let version = try await Self.sameSchemaVersion(source, target)
        let columns = try await Self.sameColumns(source, target)
        do {
            let tables = try await target.bulkLoad { loader in
                try await Self.refuseUnlessEmpty(target, loader)
                return try await source.withReadSnapshot { snapshot in
                    var counts: [Report.Count] = []
                    for table in Self.copiedTables {
                        let rows = try await copy(table, columns: columns[table.name] ?? [], from: snapshot, into: loader)
                        counts.append(Report.Count(table: table.name, rows: rows))
                    }
                    return counts
                }
            }
            return Report(schemaVersion: version, tables: tables)
        } catch let error as StoreError {
            throw error
        } catch {
            throw .failed(operation: "copying \(source.location) to \(target.location)", reason: StoreError.reason(error))
        }
    }

    /// Columns whose values belong to the source's running processes: PostgreSQL workers' claims
    /// would make the target's workers skip those receipts until the claims ran out.
    package static let notCarriedOver: Set<String> = ["claimed_by", "claimed_until"]

    /// Streams one table in keyset pages; returns how many rows went across.
    private func copy(_ table: Table, columns: [String], from source: any SnapshotQuerying, into target: any BulkLoader)
        async throws -> Int64
    {
        let keyIndexes = table.key.compactMap { columns.firstIndex(of: $0) }
        let select = "SELECT \(BulkLoadSQL.columnList(columns)) FROM \(BulkLoadSQL.identifier(table.name))"
        let order = " ORDER BY \(BulkLoadSQL.columnList(table.key)) LIMIT \(pageSize)"
        let after = " WHERE (\(BulkLoadSQL.columnList(table.key))) > (\(table.key.map { _ in "?" }.joined(separator: ", ")))"
        var lastKey: [SQLArgument]?
        var copied: Int64 = 0
        while true {
            var page: [[SQLArgument]] = []
            page.reserveCapacity(pageSize)
            try await source.forEachRow(select + (lastKey == nil ? "" : after) + order, lastKey ?? []) { row in
                page.append(try columns.map { Self.notCarriedOver.contains($0) ? .null : try row.value($0) })
            }
            guard let last = page.last else { break }
            try await target.insert(into: table.name, columns: columns, rows: page)
            copied += Int64(page.count)
            guard page.count == pageSize else { break }
            lastKey = keyIndexes.map { last[$0] }
        }
        return copied
    }

    private static func sameSchemaVersion(_ source: any SubscriptionStore, _ target: any SubscriptionStore)
        async throws(StoreError) -> Int
    {
        let (from, to) = (try await source.schemaVersion(), try await target.schemaVersion())
        guard from == to else {
            throw .refused(
                "cannot copy: the source \(source.location) is at schema version \(from) and the target "
                    + "\(target.location) at \(to); run `subrecon db migrate` on both with the same subrecon first")
        }
        return from
    }

    /// The copied tables' columns, the same on both sides (names and order); every table on either
    /// side known to the copier.
    private static func sameColumns(_ source: any SubscriptionStore, _ target: any SubscriptionStore)
        async throws(StoreError) -> [String: [String]]
    {
        let (from, to) = (try await source.tableColumns(), try await target.tableColumns())
        let known = Set(copiedTables.map(\.name)).union(tablesNotCopied.keys)
        for (store, tables) in [(source, from), (target, to)] {
            if let unknown = tables.keys.sorted().first(where: { !known.contains($0) }) {
                throw .refused(
                    "cannot copy: \(store.location) has a table \(unknown) that this subrecon does not know how to copy")
            }
        }
        for table in copiedTables {
            let (sourceColumns, targetColumns) = (from[table.name] ?? [], to[table.name] ?? [])
            guard !sourceColumns.isEmpty, sourceColumns == targetColumns, table.key.allSatisfy(sourceColumns.contains) else {
                throw .refused(
                    "cannot copy: the table \(table.name) has the columns (\(sourceColumns.joined(separator: ", "))) in "
                        + "\(source.location) but (\(targetColumns.joined(separator: ", "))) in \(target.location)")
            }
        }
        return from
    }

    /// Inside the target's transaction, with other writers kept out: every copied table empty.
    private static func refuseUnlessEmpty(_ target: any SubscriptionStore, _ loader: any BulkLoader) async throws {
        var held: [String] = []
        for table in copiedTables {
            let rows = try await loader.lockedRowCount(table.name)
            if rows > 0 { held.append("\(rows) \(table.name)") }
        }
        guard held.isEmpty else {
            throw StoreError.refused(
                "cannot copy: the target \(target.location) already holds data (\(held.joined(separator: ", "))); "
                    + "db copy fills only an empty store, and nothing was changed")
        }
    }
}
