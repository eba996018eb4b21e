import Foundation

/// A measurement's temporary folder (databases, keys, the processes' output): made fresh, and
/// removed at the end unless the user asked to keep it (`--keep`).
enum BenchFolder {
    static func make() throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("subrecon-bench-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func remove(_ folder: String, keep: Bool) {
        if !keep { try? FileManager.default.removeItem(atPath: folder) }
    }
}
