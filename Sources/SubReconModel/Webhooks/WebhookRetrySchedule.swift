/// `SUBRECON_WEBHOOK_RETRY_SCHEDULE`: the seconds before each delivery attempt of an event. Its
/// length is the number of attempts; entry 0 counts from the event's creation (or replay), entry i
/// from attempt i; after the last failed attempt the event is `dead`.
public struct WebhookRetrySchedule: Sendable, Equatable, CustomStringConvertible {
    public static let variable = "SUBRECON_WEBHOOK_RETRY_SCHEDULE"
    /// The Standard Webhooks / Svix schedule: 8 attempts over about 27 hours.
    public static let standardText = "0,5,300,1800,7200,18000,36000,36000"
    public static let standard = WebhookRetrySchedule(uncheckedDelaysSeconds: [0, 5, 300, 1800, 7200, 18000, 36000, 36000])
    /// The largest delay that still fits in Int64 milliseconds.
    static let maxDelaySeconds = Int64.max / 1000

    /// The delay before each attempt, in seconds; never empty, never negative.
    public private(set) var delaysSeconds: [Int64]

    /// How many attempts an event gets before it is `dead`.
    public var attempts: Int { delaysSeconds.count }

    /// The delay before attempt `n` (1-based) in milliseconds: attempt 1's counts from the event's
    /// creation or replay, attempt n+1's from attempt n. nil when `n` is past the last attempt (the
    /// event is dead) or not positive.
    public func delayMs(beforeAttempt n: Int) -> Int64? {
        guard n >= 1, n <= delaysSeconds.count else { return nil }
        return delaysSeconds[n - 1] * 1000
    }

    /// The schedule as the variable writes it.
    public var description: String { delaysSeconds.map(String.init).joined(separator: ",") }

    /// `delays` in seconds: at least one, each from 0 to `maxDelaySeconds`.
    public init(delaysSeconds delays: [Int64]) throws(ConfigurationError) {
        guard !delays.isEmpty, delays.allSatisfy({ (0...Self.maxDelaySeconds).contains($0) }) else {
            throw Self.invalid(delays.map(String.init).joined(separator: ","))
        }
        self.delaysSeconds = delays
    }

    private init(uncheckedDelaysSeconds delays: [Int64]) {
        self.delaysSeconds = delays
    }

    /// The variable's value: comma-separated whole seconds (spaces around them allowed); nil or
    /// blank means the standard schedule.
    public static func parse(_ text: String?) throws(ConfigurationError) -> WebhookRetrySchedule {
        guard let text, text.contains(where: { !$0.isWhitespace }) else { return .standard }
        var delays: [Int64] = []
        for field in text.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = field.trimmingWhitespace()
            // Digits only: "+5", "-2", "1.5" and "5s" are not whole non-negative seconds.
            guard !entry.isEmpty, entry.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(entry),
                seconds <= maxDelaySeconds
            else { throw invalid(text) }
            delays.append(seconds)
        }
        return try WebhookRetrySchedule(delaysSeconds: delays)
    }

    static func invalid(_ text: String) -> ConfigurationError {
        .invalidNumber(
            setting: variable, value: text,
            expected: "comma-separated whole seconds, each 0 or more, at least one (the default is \(standardText))")
    }
}

extension Substring {
    /// Without the white space (blanks, tabs, line ends) at either end.
    func trimmingWhitespace() -> Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
