/// What signed data must name to be one of our apps: its bundle ID and, when configured, its
/// Apple ID (checked on production data).
package struct AppIdentity: Sendable, Equatable {
    package var bundleID: String
    package var appAppleID: Int64?

    package init(bundleID: String, appAppleID: Int64? = nil) {
        self.bundleID = bundleID
        self.appAppleID = appAppleID
    }
}
