import Foundation
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `db copy` was given a SQLite file that does not exist to copy from (exit 66).
public struct MissingSourceDatabase: OperatorFacingError {
    public var path: String

    public var exitStatus: ExitStatus { .unreadableInput }
    public var description: String { "there is no SQLite database at \(path) to copy from" }
}

extension CommandContext {
    /// What `db migrate` left: the database (masked) and its schema version.
    public struct MigrationResult: Sendable {
        public var location: String
        public var schemaVersion: Int
    }

    /// `subrecon db migrate`: opens the database (which creates or migrates its schema) and
    /// reads the version, for deploy pipelines.
    public func migrate() async throws -> MigrationResult {
        let store = try await openStore()
        let version: Int
        do {
            version = try await store.schemaVersion()
        } catch {
            await store.close()
            throw DatabaseFailure(error)
        }
        let result = MigrationResult(location: store.location, schemaVersion: version)
        await store.close()
        return result
    }

    /// What `db copy` did.
    public struct CopyResult: Sendable {
        public var report: StoreCopier.Report
        public var source: DatabaseLocation
        public var target: DatabaseLocation
    }

    /// `subrecon db copy SOURCE TARGET`: every table from one store into another, empty one, in
    /// one transaction from one snapshot of the source.
    public func copyStore(from sourceText: String, to targetText: String) async throws -> CopyResult {
        let locations = try databases(named: [sourceText, targetText])
        let (from, to) = (locations[0], locations[1])
        if case .sqlite(let path) = from, !FileManager.default.fileExists(atPath: path) {
            throw MissingSourceDatabase(path: path)
        }
        let sourceStore = try await openStore(from)
        let targetStore: any SubscriptionStore
        do {
            targetStore = try await openStore(to)
        } catch {
            await sourceStore.close()
            throw error
        }
        logger.info("copying \(from) to \(to)", source: Self.logSource)
        let report: StoreCopier.Report
        do {
            report = try await StoreCopier().copy(from: sourceStore, to: targetStore)
        } catch {
            await sourceStore.close()
            await targetStore.close()
            throw error
        }
        await sourceStore.close()
        await targetStore.close()
        return CopyResult(report: report, source: from, target: to)
    }
}
