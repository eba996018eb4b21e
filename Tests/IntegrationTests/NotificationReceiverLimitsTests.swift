import NotificationReceiver
import SubReconModel
import Testing

/// The receiver's slow-client limits: flags over variables over defaults, ranges, and the
/// connection cap against the file-descriptor limit.
@Suite struct NotificationReceiverLimitsTests {
    static let plenty = FileDescriptorBudget(limit: 65_536, reserved: 100)

    @Test func theDefaultsAreTenSecondsSeventyFiveSecondsAnd512Connections() throws {
        var warnings: [String] = []
        let limits = try NotificationReceiverLimits.resolve(environment: [:], descriptors: Self.plenty, warnings: &warnings)
        #expect(limits == NotificationReceiverLimits(readTimeoutSeconds: 10, idleTimeoutSeconds: 75, maxConnections: 512))
        #expect(warnings.isEmpty)
        // What the server uses when nothing is resolved (tests, the demo) is the same.
        let configuration = NotificationReceiverConfiguration()
        #expect(configuration.readTimeout == .seconds(10))
        #expect(configuration.idleTimeout == .seconds(75))
        #expect(configuration.maxConnections == 512)
    }

    @Test func variablesSetThemAndFlagsWin() throws {
        var warnings: [String] = []
        let environment = [
            "SUBRECON_NOTIFICATIONS_READ_TIMEOUT": " 3 ", "SUBRECON_NOTIFICATIONS_IDLE_TIMEOUT": "120",
            "SUBRECON_NOTIFICATIONS_MAX_CONNECTIONS": "64",
        ]
        let fromVariables = try NotificationReceiverLimits.resolve(environment: environment, descriptors: Self.plenty, warnings: &warnings)
        #expect(fromVariables == NotificationReceiverLimits(readTimeoutSeconds: 3, idleTimeoutSeconds: 120, maxConnections: 64))
        let fromFlags = try NotificationReceiverLimits.resolve(
            environment: environment, readTimeoutFlag: 1, idleTimeoutFlag: 2, maxConnectionsFlag: 20, descriptors: Self.plenty, warnings: &warnings)
        #expect(fromFlags == NotificationReceiverLimits(readTimeoutSeconds: 1, idleTimeoutSeconds: 2, maxConnections: 20))
        // An empty variable is unset.
        let empty = try NotificationReceiverLimits.resolve(
            environment: ["SUBRECON_NOTIFICATIONS_READ_TIMEOUT": ""], descriptors: Self.plenty, warnings: &warnings)
        #expect(empty.readTimeoutSeconds == 10)
    }

    @Test(arguments: [
        (["SUBRECON_NOTIFICATIONS_READ_TIMEOUT": "ten"], "SUBRECON_NOTIFICATIONS_READ_TIMEOUT must be a whole number of seconds from 1 to 300, not \"ten\""),
        (["SUBRECON_NOTIFICATIONS_READ_TIMEOUT": "301"], "SUBRECON_NOTIFICATIONS_READ_TIMEOUT / --read-timeout must be a whole number of seconds from 1 to 300, not \"301\""),
        (["SUBRECON_NOTIFICATIONS_IDLE_TIMEOUT": "0"], "SUBRECON_NOTIFICATIONS_IDLE_TIMEOUT / --idle-timeout must be a whole number of seconds from 1 to 3600, not \"0\""),
        (["SUBRECON_NOTIFICATIONS_IDLE_TIMEOUT": "1.5"], "SUBRECON_NOTIFICATIONS_IDLE_TIMEOUT must be a whole number of seconds from 1 to 3600, not \"1.5\""),
        (["SUBRECON_NOTIFICATIONS_MAX_CONNECTIONS": "-1"], "SUBRECON_NOTIFICATIONS_MAX_CONNECTIONS / --max-connections must be a whole number of connections from 1 to 1000000, not \"-1\""),
    ])
    func badValuesNameTheSettingAndTheRange(environment: [String: String], message: String) {
        var warnings: [String] = []
        #expect(throws: ConfigurationError.self) {
            try NotificationReceiverLimits.resolve(environment: environment, descriptors: Self.plenty, warnings: &warnings)
        }
        do {
            _ = try NotificationReceiverLimits.resolve(environment: environment, descriptors: Self.plenty, warnings: &warnings)
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aFlagOutOfRangeIsRefusedToo() {
        var warnings: [String] = []
        #expect(throws: ConfigurationError.self) {
            try NotificationReceiverLimits.resolve(environment: [:], readTimeoutFlag: 0, descriptors: Self.plenty, warnings: &warnings)
        }
    }

    @Test func theCapMustFitTheFileDescriptorLimit() throws {
        var warnings: [String] = []
        let small = FileDescriptorBudget(limit: 1_024, reserved: 600)
        #expect(small.available == 424)
        // The default is lowered to what fits, never above it.
        let lowered = try NotificationReceiverLimits.resolve(environment: [:], descriptors: small, warnings: &warnings)
        #expect(lowered.maxConnections == 424)
        #expect(warnings == [
            "at most 424 connections at once, not 512: the file-descriptor limit is 1024 (ulimit -n) and 600 are kept for "
                + "the store, the event loops and the listener; raise it (LimitNOFILE= in the systemd unit) for the default"
        ])
        // An explicit cap that fits is kept; one that does not is an error that says what to do.
        #expect(try NotificationReceiverLimits.resolve(environment: [:], maxConnectionsFlag: 424, descriptors: small, warnings: &warnings).maxConnections == 424)
        do {
            _ = try NotificationReceiverLimits.resolve(
                environment: ["SUBRECON_NOTIFICATIONS_MAX_CONNECTIONS": "425"], descriptors: small, warnings: &warnings)
            Issue.record("a cap above the file-descriptor budget was accepted")
        } catch {
            #expect(error.description.contains("--max-connections 425"))
            #expect(error.description.contains("its limit is 1024 (ulimit -n)"))
            #expect(error.description.contains("so at most 424"))
        }
        // No room at all: an error even with the default.
        #expect(throws: ConfigurationError.self) {
            try NotificationReceiverLimits.resolve(environment: [:], descriptors: FileDescriptorBudget(limit: 64, reserved: 80), warnings: &warnings)
        }
    }

    @Test func thisProcessHasABudget() {
        let budget = FileDescriptorBudget.current()
        #expect(budget.limit > 0)
        #expect(budget.reserved >= 64 + 3, "the margin and at least one event loop are kept back")
        #expect(budget.available == max(0, budget.limit - budget.reserved))
    }
}
