import Foundation
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `subrecon import`: reads a file (or standard input), validates every row, and stores all rows
/// or, if any row is bad, none.
public struct ReceiptImporter: Sendable {
    let store: any SubscriptionStore
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
        store: any SubscriptionStore, maxReceiptBytes: Int = ImportFileParser.defaultMaxReceiptBytes,
        acceptsTransactionIDOnly: Bool = false, apps: [String] = [], serverAPIApps: Set<String> = []
    ) {
        self.apps = apps
        self.serverAPIApps = serverAPIApps
        self.store = store
        self.maxReceiptBytes = maxReceiptBytes
        self.acceptsTransactionIDOnly = acceptsTransactionIDOnly
    }

    /// - Parameter path: a file path, or `-` for standard input.
    public func importFile(path: String, format: ImportFormat?, nowMs: Int64) async throws(ImportFailure) -> ImportSummary {
        let data: Data
        do {
            if path == "-" {
                data = FileHandle.standardInput.readDataToEndOfFile()
            } else {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "permission denied or not a regular file" : "no such file"
            throw .cannotRead(path: path, reason: reason)
        }
        let resolved = ImportFormat.resolved(explicit: format, path: path, data: data)
        let parser = ImportFileParser(
            format: resolved, sourceName: path == "-" ? ImportFileParser.standardInputSourceName : path,
            maxReceiptBytes: maxReceiptBytes, acceptsTransactionIDOnly: acceptsTransactionIDOnly, apps: apps,
            serverAPIApps: serverAPIApps)
        let result = parser.parse(data)
        guard result.problems.isEmpty else { throw .badRows(result.problems) }
        do {
            return try await store.importReceipts(result.rows, nowMs: nowMs)
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
