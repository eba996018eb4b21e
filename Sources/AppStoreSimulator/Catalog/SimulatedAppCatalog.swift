/// The apps a simulator serves, and which one an account belongs to: the app its
/// `SimulatedSubscriber.bundleID` names, or the first (the default app) when it names none.
struct SimulatedAppCatalog: Sendable {
    /// Never empty; the first is the default app.
    let apps: [SimulatedApp]
    private let indexByBundleID: [String: Int]

    init(_ apps: [SimulatedApp]) {
        precondition(!apps.isEmpty, "a simulator serves at least one app")
        self.apps = apps
        var indexByBundleID: [String: Int] = [:]
        for (index, app) in apps.enumerated() where indexByBundleID[app.bundleID] == nil {
            indexByBundleID[app.bundleID] = index
        }
        self.indexByBundleID = indexByBundleID
    }

    /// The one app of a single-app configuration (the responders' own initialisers).
    init(bundleID: String, appAppleID: Int64 = SimulatorOptions.defaultAppAppleID, sharedSecret: String? = nil) {
        self.init([SimulatedApp(bundleID: bundleID, appAppleID: appAppleID, sharedSecret: sharedSecret)])
    }

    var defaultApp: SimulatedApp { apps[0] }

    /// The same apps with `change` made to the first.
    func updatingDefaultApp(_ change: (inout SimulatedApp) -> Void) -> SimulatedAppCatalog {
        var apps = apps
        change(&apps[0])
        return SimulatedAppCatalog(apps)
    }

    /// The position of the app with `bundleID`, nil when none is served.
    func index(ofBundleID bundleID: String) -> Int? {
        indexByBundleID[bundleID]
    }

    /// The position of the app `subscriber` belongs to; nil when it names an app not served
    /// (the Server API then finds it for no app).
    func index(of subscriber: SimulatedSubscriber) -> Int? {
        guard let bundleID = subscriber.bundleID else { return 0 }
        return index(ofBundleID: bundleID)
    }

    /// The app whose data `subscriber`'s answers carry.
    func app(of subscriber: SimulatedSubscriber) -> SimulatedApp {
        app(named: subscriber.bundleID)
    }

    /// The app with `bundleID` (nil: the default app). One not served is answered as an app with
    /// that bundle id, the default app's Apple id and no shared secret, so a test can make another
    /// app's receipt or notification without configuring that app.
    func app(named bundleID: String?) -> SimulatedApp {
        guard let bundleID else { return defaultApp }
        if let index = index(ofBundleID: bundleID) { return apps[index] }
        return SimulatedApp(bundleID: bundleID, appAppleID: defaultApp.appAppleID)
    }
}
