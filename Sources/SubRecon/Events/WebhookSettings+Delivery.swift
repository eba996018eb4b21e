import SubReconModel

extension WebhookSettings {
    /// The deliverer's options: each configured endpoint with its signer, the concurrency, the
    /// timeout and the schedule; events in flight leased for `leaseMs`.
    public func deliveryOptions(leaseMs: Int64, apps: [String] = []) -> WebhookDeliveryOptions {
        func target(_ endpoint: WebhookEndpoint) -> WebhookTarget {
            let signer = endpoint.signer
            return WebhookTarget(url: endpoint.url) { id, timestamp, body in
                signer.headers(eventID: id, timestampSeconds: timestamp, body: body)
            }
        }
        var targets: [String: WebhookTarget] = [:]
        for (bundleID, endpoint) in endpointsByBundleID where apps.isEmpty || apps.contains(bundleID) {
            targets[bundleID] = target(endpoint)
        }
        return WebhookDeliveryOptions(
            targets: targets, everyApp: singleEndpoint.map(target), concurrency: concurrency, timeout: timeout,
            scheduleSeconds: schedule.delaysSeconds, leaseMs: leaseMs, userAgent: SubReconVersion.userAgent)
    }

    /// The apps whose events this configuration delivers: nil for every app (one endpoint for a
    /// single-app deployment), else the bundle IDs with an endpoint.
    public var deliveringApps: Set<String>? {
        singleEndpoint != nil ? nil : Set(endpointsByBundleID.keys)
    }
}
