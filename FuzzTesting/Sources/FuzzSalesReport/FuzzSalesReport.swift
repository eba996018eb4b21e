@testable import SubReconAppStore

/// Apple's sales and subscriber reports (tab-separated text, or gzip of it): any bytes give a
/// report or a SalesReportError. A small inflate limit so a bomb is refused quickly.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: start, count: count))
    _ = try? SalesReportParser.parse(bytes, file: "fuzz.tsv", maxInflatedBytes: 1 << 20)
    return 0
}
