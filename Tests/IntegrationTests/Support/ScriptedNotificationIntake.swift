import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// A `NotificationIntake` for receiver tests: records every body it is handed and answers the
/// scripted results in order (then `fallback`). With `holding`, each body waits until `release()`,
/// so a test can have requests in flight while it shuts the server down.
actor ScriptedNotificationIntake: NotificationIntake {
    private(set) var bodies: [[UInt8]] = []
    private var script: [NotificationIntakeResult]
    private let fallback: NotificationIntakeResult
    private let holding: Bool
    private var held: [CheckedContinuation<Void, Never>] = []
    private var heldWatchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var released = false

    init(_ script: [NotificationIntakeResult] = [], fallback: NotificationIntakeResult, holding: Bool = false) {
        self.script = script
        self.fallback = fallback
        self.holding = holding
    }

    func receive(body: [UInt8], source: NotificationSource) async -> NotificationIntakeResult {
        precondition(source == .receiver, "the receiver hands bodies over as .receiver")
        bodies.append(body)
        let result = script.isEmpty ? fallback : script.removeFirst()
        if holding && !released {
            await withCheckedContinuation { continuation in
                held.append(continuation)
                let ready = heldWatchers.filter { $0.count <= held.count }
                heldWatchers.removeAll { $0.count <= held.count }
                for watcher in ready { watcher.continuation.resume() }
            }
        }
        return result
    }

    /// Returns once `count` bodies are being held.
    func waitUntilHolding(_ count: Int) async {
        if held.count >= count { return }
        await withCheckedContinuation { heldWatchers.append((count, $0)) }
    }

    /// Lets every held body (and every later one) through.
    func release() {
        released = true
        for continuation in held { continuation.resume() }
        held.removeAll()
    }
}
