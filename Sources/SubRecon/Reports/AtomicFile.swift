import Foundation
import SubReconAppStore
import SubReconModel
import SubReconStore

/// Writes a file so that it appears whole or not at all: into a temporary file (mode 0600) in
/// the same folder, then renamed over the target. A failed report never leaves a partial file.
public enum AtomicFile {
    public static func write(to path: String, _ body: (FileHandle) async throws -> Void) async throws(ReportError) {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".tmp-\(getpid())"
        let fd = open(temporary, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        guard fd >= 0 else { throw .cannotWrite(path: path, reason: String(cString: strerror(errno))) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            try await body(handle)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            unlink(temporary)
            if let error = error as? ReportError { throw error }
            throw .cannotWrite(path: path, reason: "\(error)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .cannotWrite(path: path, reason: reason)
        }
    }
}
