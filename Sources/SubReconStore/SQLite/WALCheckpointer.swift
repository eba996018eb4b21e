import GRDB
import SubReconModel

/// Takes the WAL's checkpoints off the writer: every `interval`, a PASSIVE checkpoint on a
/// connection of its own copies what was committed into the database file and syncs it while the
/// writer goes on committing. With SQLite's automatic checkpoints the commit that crosses the
/// threshold does that work itself, and every request waiting behind the writer waits with it
/// (the notification receiver's p99 followed the writer's `fdatasync` of the database file). Used
/// where latency matters (`notifications serve`); the writer keeps its 4,000-page automatic
/// checkpoint, which then finds little left to copy and restarts the WAL. Runs keep checkpointing
/// in the writer: moving it off made no difference to a run's throughput beyond the host's spread.
/// Measured: docs/performance.md, "Notifications receiver".
package final class WALCheckpointer: Sendable {
    private let task: Task<Void, Never>

    package init(path: String, interval: Duration = .milliseconds(500)) throws {
        let connection = try DatabaseQueue(path: path)
        // Unstructured: it lives as long as the store it serves, no one task; `stop()` cancels and awaits it.
        task = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                // PASSIVE never waits on the writer or on readers; what a reader still needs is
                // copied by a later pass. A failure is tried again at the next pass.
                _ = try? await connection.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
                }
            }
            // A last pass so the WAL ends small, then the connection goes.
            _ = try? await connection.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)") }
            try? connection.close()
        }
    }

    package func stop() async {
        task.cancel()
        await task.value
    }
}
