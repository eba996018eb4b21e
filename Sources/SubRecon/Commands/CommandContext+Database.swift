import Foundation
import Logging
import SubReconStore

extension CommandContext {
    /// What `db migrate` left: the database (masked) and its schema version.
    public struct MigrationResult: Sendable {
        public var location: String
        public var schemaVersion: Int
    }

    /// `subrecon db migrate`: opens the database (which creates or migrates its schema) and
    /// reads the version, for deploy pipelines.
    public func migrate() async throws -> MigrationResult {
        let store = try await openStore(ifMissing: .create)
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
        let sourceStore = try await openStore(from, origin: "db copy's SOURCE")
        let targetStore: any SubscriptionStore
        do {
            // A new target is the point of a copy, and it does not stay empty: nothing to announce.
            targetStore = try await openStore(to, ifMissing: .createQuietly)
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
