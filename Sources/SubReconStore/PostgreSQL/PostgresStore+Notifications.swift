import PostgresNIO
import SubReconModel

extension PostgresStore: NotificationStore {
    public func storeNotifications(_ writes: [NotificationWrite]) async throws(StoreError) -> [NotificationStoreResult] {
        guard !writes.isEmpty else { return [] }
        let batch = PostgresNotificationBatch(writes: writes, worker: worker)
        // One transaction: every notification row and everything they change are in or out together.
        return try await withTransaction(writes.count == 1 ? "storing a notification" : "storing \(writes.count) notifications") {
            connection in
            try await batch.store(connection)
        }
    }

    public func linkableNotifications(limit: Int) async throws(StoreError) -> [LinkableNotification] {
        try await withConnection("finding notifications that can be linked") { connection in
            try await connection.all(NotificationSQL.linkable, [.integer(Int64(limit))]) { row in
                LinkableNotification(uuid: try row[0].decode(String.self), signedPayload: try row[1].decode(String.self))
            }
        }
    }
}
