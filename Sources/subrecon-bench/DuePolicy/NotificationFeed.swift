import AppStoreSimulator
import AppleSignedData
import Logging
import SubRecon
import SubReconAppStore
import SubReconModel
import SubReconStore

/// The NOTIFIED database's receiver, in process: the App Store Server Notifications V2 the
/// simulator says the subscribers' timelines produced, handed to a `NotificationProcessor` as
/// Apple's POSTs would be (source `receiver`, each at its `signedDate` on the simulated clock),
/// except a deterministic share that is "lost" (receiver down, a deploy): dropped by a hash of
/// its `notificationUUID`, so a re-run loses the same ones. With `backfill` (the daily job of
/// `jobs/backfill-notifications.sh`, which runs before the nightly run) the lost ones of the day
/// arrive from Apple's notification history before that night's run, source `backfill`.
struct NotificationFeed {
    /// What became of the notifications so far.
    struct Counts: Sendable {
        /// Emitted by the simulator for the spans asked.
        var emitted = 0
        var dropped = 0
        /// Dropped by the receiver, then recovered by the daily backfill.
        var backfilled = 0
        var outcomes: [NotificationOutcome: Int] = [:]
        var duplicates = 0
        /// Refused (400) or not stored (503): the benchmark is broken if any.
        var refused = 0
        var unavailable = 0

        var delivered: Int { emitted - dropped }
        subscript(_ outcome: NotificationOutcome) -> Int { outcomes[outcome, default: 0] }
    }

    let simulator: AppStoreSimulator
    let clock: SimulatedClock
    let subscribers: [SimulatedSubscriber]
    let processor: NotificationProcessor
    /// Share delivered, 0...1.
    let share: Double
    /// Whether the daily backfill recovers what the receiver lost.
    let backfill: Bool
    private(set) var counts = Counts()

    init(
        simulator: AppStoreSimulator, clock: SimulatedClock, subscribers: [SimulatedSubscriber],
        store: any SubscriptionStore, share: Double, backfill: Bool, logger: Logger
    ) throws {
        self.simulator = simulator
        self.clock = clock
        self.subscribers = subscribers
        self.share = share
        self.backfill = backfill
        processor = NotificationProcessor(
            store: store,
            settings: NotificationSettings(
                bundleID: SimulatedProducts.bundleID,
                verifier: try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM, clock: clock.millisecondsClock)),
            reconciler: ReceiptReconciler(duePolicy: .notified), clock: clock.millisecondsClock, logger: logger)
    }

    /// Delivers the notifications of events in (`fromMs`, `toMs`], oldest first, each received at
    /// its `signedDate`; with `backfill`, then the ones lost among them, at `toMs` (the backfill
    /// just before the night's run). Leaves the clock at `toMs`.
    mutating func deliver(afterMs fromMs: Int64, throughMs toMs: Int64) async {
        var lost: [SimulatedNotification] = []
        for notification in simulator.notifications(for: subscribers, afterMs: fromMs, throughMs: toMs) {
            counts.emitted += 1
            guard Self.isDelivered(notification.notificationUUID, share: share) else {
                counts.dropped += 1
                lost.append(notification)
                continue
            }
            clock.set(nowMs: notification.signedDateMs)
            await receive(notification, source: .receiver)
        }
        clock.set(nowMs: toMs)
        guard backfill else { return }
        for notification in lost {
            counts.backfilled += 1
            await receive(notification, source: .backfill)
        }
    }

    private mutating func receive(_ notification: SimulatedNotification, source: NotificationSource) async {
        switch await processor.receive(body: notification.bodyBytes, source: source) {
        case .stored(_, let outcome, let duplicate, _):
            counts.outcomes[outcome, default: 0] += 1
            if duplicate { counts.duplicates += 1 }
        case .refused:
            counts.refused += 1
        case .unavailable:
            counts.unavailable += 1
        }
    }

    /// Whether the notification `uuid` reaches the receiver: its hash (FNV-1a, then SplitMix64's
    /// mix) below `share` of the range.
    static func isDelivered(_ uuid: String, share: Double) -> Bool {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in uuid.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return Double(SplitMix64.mix(hash) >> 11) * 0x1.0p-53 < share
    }
}
