import Foundation
@testable import SubRecon

/// `subrecon import`'s file parser (CSV through CSVRecordReader, and JSON Lines), in both modes:
/// any file gives rows and problems, never a trap. The second parser's receipt limit is small so
/// that inputs reach it.
private let parsers = [ImportFormat.csv, .jsonl].flatMap { format in
    [
        ImportFileParser(format: format, sourceName: "fuzz"),
        ImportFileParser(
            format: format, sourceName: "fuzz", maxReceiptBytes: 200, acceptsTransactionIDOnly: true,
            apps: ["com.example.a", "com.example.b"], serverAPIApps: ["com.example.b"]),
    ]
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    _ = ImportFormat.sniffed(from: data)
    for parser in parsers {
        _ = parser.parse(data)
    }
    return 0
}
