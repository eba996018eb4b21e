import Foundation

/// The two file formats `subrecon import` reads.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// CSV with a header line naming `user_id`, `receipt_data` and optionally `product_id`,
    /// `environment`.
    case csv
    /// JSON Lines: one JSON object per line, with the same keys as the CSV columns.
    case jsonl

    /// The format a file's extension implies (`.csv`; `.jsonl` or `.ndjson`), compared
    /// case-insensitively, or `nil` for any other extension and for `-` (standard input).
    public static func inferred(fromPath path: String) -> ImportFormat? {
        guard path != "-" else { return nil }
        switch (path as NSString).pathExtension.lowercased() {
        case "csv": return .csv
        case "jsonl", "ndjson": return .jsonl
        default: return nil
        }
    }

    /// Guesses the format from the content: JSON Lines when the first byte that is not a byte-order
    /// mark or ASCII whitespace is `{`, CSV otherwise (including empty input, which the CSV parser
    /// then reports as lacking its header).
    public static func sniffed(from data: Data) -> ImportFormat {
        var bytes = data[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let first = bytes.first { !ASCII.isWhitespace($0) }
        return first == UInt8(ascii: "{") ? .jsonl : .csv
    }

    /// The format to parse with: the explicit `--format` if given, else the file's extension,
    /// else (standard input, or an unfamiliar extension) a guess from the content.
    public static func resolved(explicit: ImportFormat?, path: String, data: Data) -> ImportFormat {
        explicit ?? inferred(fromPath: path) ?? sniffed(from: data)
    }
}
