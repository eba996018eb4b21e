import Foundation
import SubReconHTTP

/// Tells a running `subrecon simulator` about the accounts behind generated receipts, so its App
/// Store Server API can answer for their transaction ids: `POST {base}/simulator/accounts`, receipt
/// data one per line, bodies kept under the simulator's 256 KiB limit. Not measured.
enum AccountRegistration {
    static let maxBodyBytes = 240 * 1024

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Registers receipts `0 ..< count` of `source`; returns the simulator's account total.
    static func register(source: any ReceiptSource, count: Int, serverAPIBaseURL: String) async throws -> Int {
        let transport = CurlTransport(maxConnections: 1)
        defer { transport.shutdown() }
        let url = serverAPIBaseURL + "/simulator/accounts"
        var total = 0
        var body: [UInt8] = []
        body.reserveCapacity(maxBodyBytes)

        func flush() async throws {
            guard !body.isEmpty else { return }
            let request = HTTPRequest(
                url: url, headers: [("Content-Type", "text/plain")], body: body, timeout: .seconds(30))
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                throw Failure(description: "registering accounts at \(url): \(error.description)")
            }
            let text = String(decoding: response.body, as: UTF8.self)
            guard response.status == 200,
                let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                let accounts = object["accounts"] as? Int
            else {
                throw Failure(description: "registering accounts at \(url): HTTP \(response.status) \(text.prefix(200))")
            }
            total = accounts
            body.removeAll(keepingCapacity: true)
        }

        let batch = 2_000
        var start = 0
        while start < count {
            let rows = ReceiptSeeder(source: source, nowMs: 0).makeRows(Int64(start)..<Int64(min(count, start + batch)))
            for row in rows {
                let line = Array(row.receiptData.utf8)
                if !body.isEmpty, body.count + line.count + 1 > maxBodyBytes { try await flush() }
                body += line
                body.append(UInt8(ascii: "\n"))
            }
            start += rows.count
        }
        try await flush()
        return total
    }
}
