import AppStoreSimulator
import AppleSignedData
import Logging
import SubRecon

/// The NOTIFIED database's receiver, in process: the App Store Server Notifications V2 the
/// simulator says the subscribers' timelines produced, handed to a `NotificationProcessor` as
/// Apple's POSTs would be (source `receiver`, each at its `signedDate` on the simulated clock),
/// except a deterministic share that is "lost" (receiver down, a deploy): dropped by a hash of
/// its `notificationUUID`, so a re-run loses the same ones.
struct NotificationFeed {
    /// What became of the notifications so far.
    struct Counts: Sendable {
        /// Emitted by the simulator for the spans asked.
        var emitted = 0
        var dropped = 0
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
    private(set) var counts = Counts()

    init(
        simulator: AppStoreSimulator, clock: SimulatedClock, subscribers: [SimulatedSubscriber],
        store: any SubscriptionStore, share: Double, logger: Logger
    ) throws {
        self.simulator = simulator
        self.clock = clock
        self.subscribers = subscribers
        self.share = share
        processor = NotificationProcessor(
            store: store,
            settings: NotificationSettings(
                bundleID: SimulatedProducts.bundleID,
                verifier: try SignedDataVerifier(rootPEM: simulator.rootCertificatePEM, clock: clock.millisecondsClock)),
            reconciler: ReceiptReconciler(duePolicy: .notified), clock: clock.millisecondsClock, logger: logger)
    }

    /// Delivers the notifications of events in (`fromMs`, `toMs`], oldest first, each received at
    /// its `signedDate`; leaves the clock at `toMs`.
    mutating func deliver(afterMs fromMs: Int64, throughMs toMs: Int64) async {
        for notification in simulator.notifications(for: subscribers, afterMs: fromMs, throughMs: toMs) {
            counts.emitted += 1
            guard Self.isDelivered(notification.notificationUUID, share: share) else {
                counts.dropped += 1
                continue
            }
            clock.set(nowMs: notification.signedDateMs)
            switch await processor.receive(body: notification.bodyBytes, source: .receiver) {
            case .stored(_, let outcome, let duplicate, _):
                counts.outcomes[outcome, default: 0] += 1
                if duplicate { counts.duplicates += 1 }
            case .refused:
                counts.refused += 1
            case .unavailable:
                counts.unavailable += 1
            }
        }
        clock.set(nowMs: toMs)
    }

    /// Whether the notification `uuid` reaches the receiver: its hash (FNV-1a, then SplitMix64's
    /// mix) below `share` of the range.
    static func isDelivered(_ uuid: String, share: Double) -> Bool {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in uuid.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return Double(SplitMix64.mix(hash) >> 11) * 0x1.0p-53 < share
    }
}
