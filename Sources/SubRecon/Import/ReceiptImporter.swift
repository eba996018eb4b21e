import Foundation
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `subrecon import`: reads a file (or standard input), validates every row, and stores all rows
/// or, if any row is bad, none. Reading and checking need no store, so a file that cannot be read
/// or holds a bad row is refused before any database is opened (or created).
public struct ReceiptImporter: Sendable {
    let maxReceiptBytes: Int
    let acceptsTransactionIDOnly: Bool
    let apps: [String]
    let serverAPIApps: Set<String>

    /// - Parameters:
    ///   - acceptsTransactionIDOnly: server-api mode, where a row may have a `transaction_id` and
    ///     no receipt data.
    ///   - apps: the bundle IDs a row may name (`ImportFileParser.apps`); `serverAPIApps`, those
    ///     asked through the Server API.
    public init(
        maxReceiptBytes: Int = ImportFileParser.defaultMaxReceiptBytes,
        acceptsTransactionIDOnly: Bool = false, apps: [String] = [], serverAPIApps: Set<String> = []
    ) {
        self.apps = apps
        self.serverAPIApps = serverAPIApps
        self.maxReceiptBytes = maxReceiptBytes
        self.acceptsTransactionIDOnly = acceptsTransactionIDOnly
    }

    /// Reads, checks and stores the file's rows in `store` (all or none).
    /// - Parameter path: a file path, or `-` for standard input.
    public func importFile(path: String, format: ImportFormat?, into store: any SubscriptionStore, nowMs: Int64)
        async throws(ImportFailure) -> ImportSummary
    {
        try await self.store(try rows(path: path, format: format), in: store, nowMs: nowMs)
    }

    /// The file's rows, every one checked: a file that cannot be read is exit 66, any bad row
    /// exit 65 (every bad row listed).
    /// - Parameter path: a file path, or `-` for standard input.
    public func rows(path: String, format: ImportFormat?) throws(ImportFailure) -> [ImportRow] {
        let maxLineBytes = ImportFileReader.maxLineBytes(maxReceiptBytes: maxReceiptBytes)
        let contents: ImportFileReader.Contents
        do {
            contents = try ImportFileReader(maxLineBytes: maxLineBytes).contents(ofPath: path)
        } catch {
            throw .cannotRead(path: path, reason: error.reason)
        }
        let sourceName = path == "-" ? ImportFileParser.standardInputSourceName : path
        let resolved = ImportFormat.resolved(explicit: format, path: path, data: contents.data)
        let parser = ImportFileParser(
            format: resolved, sourceName: sourceName,
            maxReceiptBytes: maxReceiptBytes, acceptsTransactionIDOnly: acceptsTransactionIDOnly, apps: apps,
            serverAPIApps: serverAPIApps)
        var result = parser.parse(contents.data)
        if !contents.overlong.isEmpty {
            // An over-long line was read as an empty one: its own problem replaces whatever the
            // parser made of the gap (a CSV header "line 1 is empty").
            let lines = Set(contents.overlong.map(\.line))
            let overlong = contents.overlong.map { line in
                ImportProblem(
                    sourceName: sourceName, line: line.line,
                    reason: "the line is \(line.bytes) bytes long, over the limit of \(maxLineBytes) bytes for one line "
                        + "(a receipt_data is at most \(maxReceiptBytes) bytes); it was skipped unread")
            }
            result.problems = (result.problems.filter { !lines.contains($0.line) } + overlong).sorted { $0.line < $1.line }
        }
        guard result.problems.isEmpty else { throw .badRows(result.problems) }
        return result.rows
    }

    /// Stores checked rows in one transaction.
    public func store(_ rows: [ImportRow], in store: any SubscriptionStore, nowMs: Int64) async throws(ImportFailure)
        -> ImportSummary
    {
        do {
            return try await store.importReceipts(rows, nowMs: nowMs)
        } catch {
            throw .store(error)
        }
    }
}

/// Why nothing was imported.
public enum ImportFailure: OperatorFacingError, Sendable {
    /// Exit 66.
    case cannotRead(path: String, reason: String)
    /// Exit 65: every bad row, `FILE:LINE: reason`.
    case badRows([ImportProblem])
    case store(StoreError)

    public var exitStatus: ExitStatus {
        switch self {
        case .cannotRead: .unreadableInput
        case .badRows: .badInput
        case .store: .databaseFailed
        }
    }

    public var description: String {
        switch self {
        case .cannotRead(let path, let reason): "cannot read \(path): \(reason); nothing was imported"
        case .badRows(let problems):
            problems.map(\.description).joined(separator: "\n")
                + "\n\(problems.count) bad row(s); nothing from this file was imported"
        case .store(let error): "\(error); nothing was imported"
        }
    }
}
