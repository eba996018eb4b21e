import CompressNIO
import Foundation
import NIOCore
@testable import SubRecon
@testable import SubReconAppStore
@testable import SubReconModel
@testable import SubReconStore
import Testing

@Suite("SalesReportParser")
struct SalesReportParserTests {
    static func fixture(_ name: String) throws -> [UInt8] {
        let url = try #require(Bundle.module.resourceURL).appendingPathComponent("Fixtures/AppleReports/\(name)")
        return Array(try Data(contentsOf: url))
    }

    static func gzip(_ bytes: [UInt8]) throws -> [UInt8] {
        var buffer = ByteBuffer(bytes: bytes)
        var compressed = try buffer.compress(with: .gzip())
        return compressed.readBytes(length: compressed.readableBytes) ?? []
    }

    static func problem(_ bytes: [UInt8], file: String = "r.tsv") -> SalesReportError? {
        do {
            _ = try SalesReportParser.parse(bytes, file: file)
            return nil
        } catch {
            return error
        }
    }

    static func problem(_ text: String) -> SalesReportError? { problem(Array(text.utf8)) }

    static let header = "Provider\tSKU\tProduct Type Identifier\tUnits\tDeveloper Proceeds\tBegin Date\tEnd Date\tCustomer Currency\tCountry Code\tCustomer Price\tSubscription\tPeriod"
    static func row(units: String = "1", price: String = "9.99", date: String = "11/26/2026", currency: String = "USD", country: String = "US") -> String {
        "APPLE\tpro.monthly\tIAY\t\(units)\t7.00\t\(date)\t\(date)\t\(currency)\t\(country)\t\(price)\tRenewal\t1 Month"
    }

    @Test func theSampleParses() throws {
        let report = try SalesReportParser.parse(Self.fixture("sales.tsv"), file: "sales.tsv")
        #expect(report.day.text == "2020-10-05")
        #expect(report.rows.count == 46)
        #expect(report.rows.first?.line == 2)
        #expect(report.rows.last?.line == 47)
        let first = try #require(report.rows.first)
        #expect(first.sku == "foo.bar.baz")
        #expect(first.productTypeIdentifier == "IAY")
        #expect(first.units == 12)
        #expect(first.customerPriceMilliunits == 299_000)
        #expect(first.developerProceedsMilliunits == 209_300)
        #expect(first.customerCurrency == "RUB")
        #expect(first.countryCode == "RU")
        #expect(first.subscription == "Renewal")
        #expect(first.period == "7 Days")
        #expect(first.orderType == "")
        // The partial refund: zero units, a negative price, positive proceeds.
        let partial = try #require(report.rows.first { $0.units == 0 && $0.customerPriceMilliunits < 0 })
        #expect(partial.customerPriceMilliunits == -85_430)
        #expect(partial.developerProceedsMilliunits == 59_800)
        #expect(partial.orderType == "Pay As You Go Intro Offer")
        #expect(partial.line == 21)
        // Empty cells (one space) are trimmed to empty.
        #expect(report.rows[1].subscription == "")
    }

    @Test func theSubscriberReportIsRefused() throws {
        let error = try #require(Self.problem(try Self.fixture("subscribers.tsv"), file: "subscribers.tsv"))
        #expect(error.line == 1)
        #expect(error.problem == .notSummarySalesReport(looksLike: "a Subscriber Report (SUBSCRIBER/DETAILED)"))
        #expect(error.description.hasPrefix("subscribers.tsv:1: not a Summary Sales Report"))
    }

    @Test func aFinanceReportIsNamed() {
        let text = "Start Date\tEnd Date\tUPC\tVendor Identifier\tQuantity\tPartner Share\n10/01/2020\t10/31/2020\t \tx\t1\t0.70\n"
        #expect(Self.problem(text)?.problem == .notSummarySalesReport(looksLike: "a Financial Report (FINANCIAL)"))
    }

    @Test func gzipParsesTheSameAndTruncatedGzipFails() throws {
        let plain = try Self.fixture("sales.tsv")
        let compressed = try Self.gzip(plain)
        #expect(compressed.starts(with: [0x1f, 0x8b]))
        #expect(try SalesReportParser.parse(compressed, file: "S_D_1_20201005.gz") == SalesReportParser.parse(plain, file: "x"))
        let truncated = Array(compressed.prefix(compressed.count / 2))
        #expect(Self.problem(truncated, file: "t.gz") == SalesReportError(file: "t.gz", line: 1, problem: .corruptGzip))
        let noTrailer = Array(compressed.dropLast(4))
        #expect(Self.problem(noTrailer)?.problem == .corruptGzip)
        var garbled = compressed
        garbled[20] ^= 0xff
        #expect(Self.problem(garbled)?.problem == .corruptGzip)
    }

    @Test func inflatingPastTheLimitIsRefused() throws {
        let compressed = try Self.gzip(try Self.fixture("sales.tsv"))
        #expect(throws: SalesReportError(file: "x", line: 1, problem: .tooLarge(limitBytes: 1000))) {
            try SalesReportParser.parse(compressed, file: "x", maxInflatedBytes: 1000)
        }
    }

    @Test func everyMissingRequiredColumnIsNamed() throws {
        let text = String(decoding: try Self.fixture("sales.tsv"), as: UTF8.self)
        for column in ["Begin Date", "SKU", "Product Type Identifier", "Units", "Customer Price", "Customer Currency", "Country Code"] {
            let header = text.prefix { $0 != "\n" }
            let renamed = header.split(separator: "\t", omittingEmptySubsequences: false)
                .map { $0 == column ? "Something Else" : String($0) }.joined(separator: "\t")
            let error = Self.problem(renamed + text.drop { $0 != "\n" })
            #expect(error == SalesReportError(file: "r.tsv", line: 1, problem: .missingColumn(column)), "\(column)")
            #expect(error?.description.contains("\"\(column)\"") == true)
        }
    }

    @Test func columnsAreFoundByNameInAnyOrderAndUnknownOnesIgnored() throws {
        let original = try SalesReportParser.parse(Self.fixture("sales.tsv"), file: "x")
        let text = String(decoding: try Self.fixture("sales.tsv"), as: UTF8.self)
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let order = Array((0..<lines[0].count).reversed())
        let reordered = lines.enumerated().map { index, cells in
            (order.map { cells[$0] } + [index == 0 ? "Brand New Column" : "whatever"]).joined(separator: "\t")
        }.joined(separator: "\n") + "\n\n\n"
        #expect(try SalesReportParser.parse(text: reordered, file: "x") == original)
    }

    @Test func aliasesAndCaseAreAccepted() throws {
        let text = "sku\tproduct_type\tQUANTITY\tstart date\tcurrency\tcountry of sale\tcustomer  price\n"
            + "p\tIAY\t1.00\t11/26/2026\tGBP\tGB\t.99\n"
        let report = try SalesReportParser.parse(text: text, file: "x")
        #expect(report.rows == [SalesReportRow(line: 2, sku: "p", productTypeIdentifier: "IAY", units: 1, customerPriceMilliunits: 990, customerCurrency: "GBP", countryCode: "GB")])
    }

    @Test func numbers() {
        #expect(SalesReportParser.parseDecimal(".99", decimals: 3) == 990)
        #expect(SalesReportParser.parseDecimal("-38.25", decimals: 3) == -38_250)
        #expect(SalesReportParser.parseDecimal("1.234", decimals: 3) == 1234)
        #expect(SalesReportParser.parseDecimal("1.2345", decimals: 3) == nil)
        #expect(SalesReportParser.parseDecimal("1.", decimals: 3) == nil)
        #expect(SalesReportParser.parseDecimal("", decimals: 3) == nil)
        #expect(SalesReportParser.parseDecimal("1e3", decimals: 3) == nil)
        #expect(SalesReportParser.parseDecimal("1,00", decimals: 3) == nil)
        #expect(SalesReportParser.parseDecimal("99999999999999999999", decimals: 3) == nil)
        #expect(Self.problem(Self.header + "\n" + Self.row(units: "1.5"))?.problem == .fractionalUnits(value: "1.5"))
        #expect(Self.problem(Self.header + "\n" + Self.row(units: "-1.00")) == nil)
        #expect(Self.problem(Self.header + "\n" + Self.row(price: "9.9999"))?.problem == .badNumber(column: "Customer Price", value: "9.9999"))
        #expect(Self.problem(Self.header + "\n" + Self.row(price: "abc"))?.problem == .badNumber(column: "Customer Price", value: "abc"))
    }

    @Test func badRowsNameTheirLine() {
        let good = Self.row()
        #expect(Self.problem(Self.header + "\n" + good + "\n" + Self.row(date: "11/27/2026"))
            == SalesReportError(file: "r.tsv", line: 3, problem: .mixedDates(reportDay: "2026-11-26", rowDay: "2026-11-27")))
        #expect(Self.problem(Self.header + "\n" + Self.row(date: "2026/11/26"))?.problem == .badDate(column: "Begin Date", value: "2026/11/26"))
        #expect(Self.problem(Self.header + "\n" + Self.row(currency: "usd"))?.problem == .badCurrency("usd"))
        #expect(Self.problem(Self.header + "\n" + Self.row(country: "USA"))?.problem == .badCountry("USA"))
        #expect(Self.problem(Self.header + "\n" + "APPLE\tp\tIAY")
            == SalesReportError(file: "r.tsv", line: 2, problem: .tooFewCells(expected: 12, found: 3)))
        #expect(Self.problem(Self.header + "\n\n" + good)?.line == 2)
        #expect(Self.problem(Self.header + "\n" + good + "\n\n\r\n") == nil)
        #expect(Self.problem("")?.problem == .empty)
        #expect(Self.problem(Self.header + "\n")?.problem == .noRows)
        let beginEnd = "SKU\tProduct Type Identifier\tUnits\tBegin Date\tEnd Date\tCustomer Currency\tCountry Code\tCustomer Price\n"
            + "p\tIAY\t1\t11/26/2026\t11/27/2026\tUSD\tUS\t1\n"
        #expect(Self.problem(beginEnd)?.problem == .beginEndDiffer(begin: "2026-11-26", end: "2026-11-27"))
        #expect(Self.problem([0xff, 0xfe, 0x00])?.problem == .notUTF8)
    }

    @Test func fileNamesOfAnotherVendorAreRefused() throws {
        let name = try #require(SalesReportFileName("/tmp/in/S_D_80012345_20261126.txt.gz"))
        #expect(name.vendorNumber == "80012345")
        #expect(name.day.text == "2026-11-26")
        #expect(SalesReportFileName("S_D_80012345_20261126") != nil)
        #expect(SalesReportFileName("S_D_80012345_20261126.tsv") != nil)
        #expect(SalesReportFileName("report.tsv") == nil)
        #expect(SalesReportFileName("S_W_80012345_20261126.txt") == nil)
        #expect(SalesReportFileName.vendorMismatch(path: "S_D_80012345_20261126.gz", configuredVendor: "80012345") == nil)
        #expect(SalesReportFileName.vendorMismatch(path: "mine.tsv", configuredVendor: "80012345") == nil)
        let error = try #require(SalesReportFileName.vendorMismatch(path: "S_D_85555555_20261126.gz", configuredVendor: "80012345"))
        #expect(error.description.contains("85555555") && error.description.contains("80012345"))
    }
}
