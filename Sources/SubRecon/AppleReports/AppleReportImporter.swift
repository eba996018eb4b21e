import Foundation
import SubReconAppStore
import SubReconModel
import SubReconStore

/// `apple-reports import FILE...`: Summary Sales Reports downloaded by hand (`.txt`/`.tsv`, or
/// gzip). Every file is read and checked before anything is stored: one bad file and nothing is
/// stored at all (exit 65), so a fixed file can simply be imported again with the others.
/// Each file's day is then stored in its own transaction, replacing an earlier copy of that day.
public struct AppleReportImporter: Sendable {
    let store: any SubscriptionStore
    /// The configured vendor number, when set: a file named for another vendor is refused.
    let vendorNumber: String?
    let clock: @Sendable () -> Int64

    public init(store: any SubscriptionStore, vendorNumber: String?, clock: @escaping @Sendable () -> Int64) {
        self.store = store
        self.vendorNumber = vendorNumber
        self.clock = clock
    }

    public struct Imported: Sendable {
        public var path: String
        public var day: CalendarDay
        public var rows: Int
        public var result: AppleReportStoreResult
    }

    /// Reads, checks and stores `paths`.
    public func importFiles(_ paths: [String]) async throws(AppleReportImportError) -> [Imported] {
        let today: CalendarDay
        do { today = try PacificTime().day(ofMs: clock()) } catch { throw .other(error.description) }
        var parsed: [(path: String, bytes: [UInt8], report: SalesReport)] = []
        var problems: [String] = []
        for path in paths {
            guard let data = FileManager.default.contents(atPath: path) else {
                let reason = FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file"
                throw .unreadable(path: path, reason: reason)
            }
            let bytes = [UInt8](data)
            if let vendorNumber, let mismatch = SalesReportFileName.vendorMismatch(path: path, configuredVendor: vendorNumber) {
                problems.append(mismatch.description)
                continue
            }
            do {
                let report = try SalesReportParser.parse(bytes, file: path)
                if report.day >= today {
                    problems.append(
                        "\(path):2: the report is dated \(report.day.text), which has not ended yet in Pacific time (today is \(today.text))")
                } else if let other = parsed.first(where: { $0.report.day == report.day }) {
                    problems.append("\(path):2: \(other.path) is a report of the same day, \(report.day.text): import one of them")
                } else {
                    parsed.append((path, bytes, report))
                }
            } catch {
                problems.append(error.description)
            }
        }
        guard problems.isEmpty else { throw .malformed(problems) }
        var imported: [Imported] = []
        for file in parsed {
            let day = AppleReportDay(
                day: file.report.day, vendorNumber: vendorNumber ?? "", source: .import,
                fileName: (file.path as NSString).lastPathComponent, reportVersion: nil,
                sha256: AppleReportFetcher.sha256(file.bytes), noSales: file.report.rows.isEmpty, rows: file.report.rows)
            do {
                let result = try await store.storeAppleReport(day, nowMs: clock())
                imported.append(Imported(path: file.path, day: file.report.day, rows: file.report.rows.count, result: result))
            } catch {
                throw .store(error)
            }
        }
        return imported
    }
}

/// Why `apple-reports import` stored nothing (or stopped).
public enum AppleReportImportError: OperatorFacingError, Sendable {
    /// A file cannot be opened (exit 66).
    case unreadable(path: String, reason: String)
    /// `FILE:LINE: reason` for each bad file (exit 65); nothing was stored.
    case malformed([String])
    case store(StoreError)
    case other(String)

    public var exitStatus: ExitStatus {
        switch self {
        case .unreadable: .unreadableInput
        case .malformed: .badInput
        case .store(let error): error.exitStatus
        case .other: .configuration
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "cannot read \(path): \(reason)"
        case .malformed(let problems): problems.joined(separator: "\n") + "\nnothing was stored"
        case .store(let error): error.description
        case .other(let message): message
        }
    }
}
