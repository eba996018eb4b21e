@testable import AppStoreSimulator
import Foundation
import Testing

@Suite struct AppleDateFormatTests {
    @Test(arguments: [
        // From real bodies (Tests/SubReconTests/Fixtures/apple-real) and Apple's examples on its
        // 'responseBody.Latest_receipt_info' page.
        (Int64(1_591_723_711_000), "2020-06-09 17:28:31 Etc/GMT", "2020-06-09 10:28:31 America/Los_Angeles"),
        (Int64(1_605_229_763_000), "2020-11-13 01:09:23 Etc/GMT", "2020-11-12 17:09:23 America/Los_Angeles"),
        (Int64(1_375_340_400_000), "2013-08-01 07:00:00 Etc/GMT", "2013-08-01 00:00:00 America/Los_Angeles"),
        (Int64(1_716_192_930_417), "2024-05-20 08:15:30 Etc/GMT", "2024-05-20 01:15:30 America/Los_Angeles"),
        // Daylight saving edges (2024-03-10 10:00Z starts PDT, 2024-11-03 09:00Z ends it).
        (Int64(1_710_064_799_000), "2024-03-10 09:59:59 Etc/GMT", "2024-03-10 01:59:59 America/Los_Angeles"),
        (Int64(1_710_064_800_000), "2024-03-10 10:00:00 Etc/GMT", "2024-03-10 03:00:00 America/Los_Angeles"),
        (Int64(1_730_624_399_000), "2024-11-03 08:59:59 Etc/GMT", "2024-11-03 01:59:59 America/Los_Angeles"),
        (Int64(1_730_624_400_000), "2024-11-03 09:00:00 Etc/GMT", "2024-11-03 01:00:00 America/Los_Angeles"),
    ])
    func knownInstants(ms: Int64, utc: String, pacific: String) {
        #expect(AppleDateFormat.utc(ms) == utc)
        #expect(AppleDateFormat.pacific(ms) == pacific)
    }

    @Test func agreesWithFoundationAcross1990To2040() {
        let utcFormatter = DateFormatter()
        utcFormatter.locale = Locale(identifier: "en_US_POSIX")
        utcFormatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        utcFormatter.timeZone = TimeZone(identifier: "UTC")
        let pacificFormatter = DateFormatter()
        pacificFormatter.locale = Locale(identifier: "en_US_POSIX")
        pacificFormatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        pacificFormatter.timeZone = TimeZone(identifier: "America/Los_Angeles")
        var generator = SystemRandomNumberGenerator()
        let start: Int64 = 631_152_000_000  // 1990-01-01
        let end: Int64 = 2_208_988_800_000  // 2040-01-01
        for _ in 0..<3_000 {
            let ms = Int64.random(in: start..<end, using: &generator) / 1000 * 1000
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            #expect(AppleDateFormat.utc(ms) == utcFormatter.string(from: date) + " Etc/GMT")
            #expect(AppleDateFormat.pacific(ms) == pacificFormatter.string(from: date) + " America/Los_Angeles", "\(ms)")
        }
    }
}
