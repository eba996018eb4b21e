/// How a simulated notification is signed: like Apple by default, or forged so a receiver test
/// can watch it being refused. The defect goes into the notification's JWS and into the
/// transaction and renewal JWSs inside it, as the Server API's trust-failure faults do.
public struct NotificationSigning: Sendable, Hashable {
    /// Which certificate chain signs: `.valid`, or one differing from it by one defect. Note
    /// `.expiredLeaf`: its leaf ended 30 days before the authority was made, so a notification
    /// made now is refused but one for an older event is not.
    public typealias Chain = SimulatedSigningAuthority.ChainKind

    public var chain: Chain
    /// Replaces `data.bundleId` and the nested transactions' `bundleId` (another app's
    /// notification); nil keeps the simulator's bundle id.
    public var bundleID: String?

    public init(chain: Chain = .valid, bundleID: String? = nil) {
        self.chain = chain
        self.bundleID = bundleID
    }

    /// Signed like Apple, for the simulator's app.
    public static let apple = NotificationSigning()
    /// Signed like Apple, but for another app (`FaultStep.otherAppBundleID`).
    public static let otherApp = NotificationSigning(bundleID: FaultStep.otherAppBundleID)

    /// The same defects as the Server API's signed-data variants.
    var signedDataVariant: SignedDataVariant {
        SignedDataVariant(chain: chain, bundleID: bundleID)
    }
}
