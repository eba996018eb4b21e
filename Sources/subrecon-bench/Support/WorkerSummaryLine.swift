import Foundation
/// The figures in `subrecon run`'s summary line, e.g.
/// `nightly run 2 completed: 20000 receipts, 0 updated, 19800 unchanged, …, 31.6 s, exit 0;
/// Server API: 20140 requests, 0 answered 429, 641.2/s`.
struct WorkerSummaryLine {
    var text: String
    /// Server API requests the worker sent (statuses, history pages, re-asks, retries).
    var apiRequests: Int?
    /// Answers with HTTP 429.
    var apiRateLimited: Int?
    /// The worker's own rate: requests between its first and last request slot.
    var apiRate: Double?

    init(_ text: String) {
        self.text = text
        guard let range = text.range(of: "Server API: ") else { return }
        let tail = text[range.upperBound...]
        let parts = tail.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        for part in parts {
            let words = part.split(separator: " ")
            guard let first = words.first else { continue }
            if part.hasSuffix(" requests") {
                apiRequests = Int(first)
            } else if part.hasSuffix("answered 429") {
                apiRateLimited = Int(first)
            } else if first.hasSuffix("/s") {
                apiRate = Double(first.dropLast(2))
            }
        }
    }

    /// The last line of a worker's stdout.
    static func last(in output: String) -> WorkerSummaryLine {
        WorkerSummaryLine(output.split(separator: "\n").last.map(String.init) ?? "(no summary line)")
    }
}
