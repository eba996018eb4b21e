@testable import SubReconModel
import Testing

@Suite("Webhook retry schedule")
struct WebhookRetryScheduleTests {
    @Test func theDefaultIsTheStandardWebhooksSchedule() throws {
        let schedule = try WebhookRetrySchedule.parse(nil)
        #expect(schedule == .standard)
        #expect(schedule.delaysSeconds == [0, 5, 300, 1800, 7200, 18000, 36000, 36000])
        #expect(schedule.attempts == 8)
        #expect(try WebhookRetrySchedule.parse("  ") == .standard)
        #expect(schedule.description == WebhookRetrySchedule.standardText)
    }

    @Test func delaysAreOneBasedInMillisecondsAndEndAtTheLastAttempt() throws {
        let schedule = try WebhookRetrySchedule.parse("0, 2 ,7")
        #expect(schedule.delaysSeconds == [0, 2, 7])
        #expect(schedule.attempts == 3)
        #expect(schedule.delayMs(beforeAttempt: 1) == 0)
        #expect(schedule.delayMs(beforeAttempt: 2) == 2000)
        #expect(schedule.delayMs(beforeAttempt: 3) == 7000)
        #expect(schedule.delayMs(beforeAttempt: 4) == nil)
        #expect(schedule.delayMs(beforeAttempt: 0) == nil)
        #expect(try WebhookRetrySchedule.parse("5").delayMs(beforeAttempt: 1) == 5000)
    }

    @Test("anything but non-negative whole seconds is refused, naming the variable",
        arguments: ["1,-2", "a", "1,,2", ",", "1,", "1.5", "+5", "5s", "0x10", "99999999999999999999", "9223372036854776"])
    func badSchedulesAreRefused(_ text: String) {
        #expect {
            try WebhookRetrySchedule.parse(text)
        } throws: { error in
            let message = (error as? ConfigurationError)?.description ?? ""
            return message.contains("SUBRECON_WEBHOOK_RETRY_SCHEDULE") && message.contains("whole seconds")
        }
    }

    @Test func theInitializerChecksToo() {
        #expect(throws: ConfigurationError.self) { try WebhookRetrySchedule(delaysSeconds: []) }
        #expect(throws: ConfigurationError.self) { try WebhookRetrySchedule(delaysSeconds: [1, -1]) }
        #expect(throws: Never.self) { try WebhookRetrySchedule(delaysSeconds: [0]) }
    }
}
