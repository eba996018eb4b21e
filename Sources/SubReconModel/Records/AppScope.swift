/// Which apps' receipts a selection takes: every stored receipt (a deployment with one app), or
/// the receipts of one app of several (`receipts.bundle_id`).
public enum AppScope: Sendable, Hashable {
    case every
    case app(String)

    /// The bundle ID the scope is limited to; nil for every app.
    public var bundleID: String? {
        switch self {
        case .every: nil
        case .app(let bundleID): bundleID
        }
    }
}
