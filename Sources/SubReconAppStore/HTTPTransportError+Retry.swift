import SubReconHTTP
import SubReconModel

extension HTTPTransportError {
    /// Worth another attempt within the run (both Apple clients): a timeout or a dropped
    /// connection may pass; a certificate we don't trust, a bad URL or an oversized answer won't
    /// fix itself in seconds.
    package var isTransient: Bool {
        switch self {
        case .timedOut, .connectionFailed, .transportFailed: true
        case .tlsFailed, .invalidURL, .responseTooLarge, .shutDown: false
        }
    }
}
