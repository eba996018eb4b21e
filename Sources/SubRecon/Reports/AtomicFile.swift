import Foundation
import SubReconModel
import SubReconStore

/// Writes a file so that it appears whole or not at all: into a temporary file in the same folder,
/// then renamed over the target. A failed report never leaves a partial file. Reports hold customer
/// data and are mode 0600; `mode` widens it for a file others must read (the metrics textfile).
public enum AtomicFile {
    public static func write(to path: String, mode: mode_t = 0o600, _ body: (FileHandle) async throws -> Void)
        async throws(ReportError)
    {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let temporary = directory + "/." + url.lastPathComponent + ".tmp-\(getpid())"
        let fd = open(temporary, O_CREAT | O_WRONLY | O_TRUNC, mode)
        guard fd >= 0 else { throw .cannotWrite(path: path, reason: reason(errno, folder: directory)) }
        // The umask (often 022, sometimes 077) must not narrow what the caller asked for.
        fchmod(fd, mode)
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        do {
            try await body(handle)
            try handle.synchronize()
            try handle.close()
        } catch {
            try? handle.close()
            unlink(temporary)
            if let error = error as? ReportError { throw error }
            // The database failed while the report was read: that is exit 74, not the file's fault.
            if let error = error as? StoreError { throw .failed(error.description) }
            throw .cannotWrite(path: path, reason: "\(error)")
        }
        guard rename(temporary, path) == 0 else {
            let reason = reason(errno, folder: directory, target: path)
            unlink(temporary)
            throw .cannotWrite(path: path, reason: reason)
        }
    }

    /// An operator's sentence for why Foundation could not write `path` (its POSIX cause, named as
    /// `reason` names it, rather than `NSCocoaErrorDomain Code=4 …`).
    public static func reason(writing path: String, _ error: any Error) -> String {
        var cause: NSError? = error as NSError
        while let current = cause, current.domain != NSPOSIXErrorDomain {
            cause = current.userInfo[NSUnderlyingErrorKey] as? NSError
        }
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if let cause { return reason(Int32(cause.code), folder: folder, target: path) }
        if (error as NSError).domain == NSCocoaErrorDomain, (error as NSError).code == NSFileNoSuchFileError {
            return reason(ENOENT, folder: folder)
        }
        return error.localizedDescription
    }

    /// An operator's sentence for why a file could not be created in `folder`.
    static func reason(_ code: Int32, folder: String, target: String? = nil) -> String {
        switch code {
        case ENOENT: "the folder \(folder) does not exist"
        case ENOTDIR: "\(folder) is not a folder"
        case EACCES, EPERM: "this user may not create files in \(folder)"
        case EISDIR: "\(target ?? folder) is a folder"
        case EROFS: "\(folder) is on a read-only file system"
        case ENOSPC, EDQUOT: "no space left in \(folder)"
        default: String(cString: strerror(code))
        }
    }
}
