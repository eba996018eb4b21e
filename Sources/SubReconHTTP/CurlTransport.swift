import CCurl
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `HTTPTransport` over libcurl's multi interface, driven by one dedicated thread.
///
/// Every transfer runs on that thread's single multi handle, so connections (and TLS sessions,
/// DNS answers and the parsed CA store) are shared and kept alive across requests. `send` hands
/// the request over through a lock-protected queue and suspends until the thread completes it.
///
/// At most `maxConnections` transfers run at once; further requests wait in a FIFO queue and their
/// `timeout` starts counting only when their transfer starts.
///
/// TLS peer and host verification are always on. Cancelling the calling task does not abort a
/// transfer: it runs to completion (bounded by the request's timeout) and its result is returned.
public final class CurlTransport: HTTPTransport, Sendable {
    private let loop: CurlLoop
    /// The loop thread while it runs; `nil` once joined (or if it never started).
    private let thread: Mutex<pthread_t?>

    /// Creates the transport and starts its loop thread.
    /// - Parameters:
    ///   - maxConnections: transfers in flight at once, and connections per host and in total.
    ///   - maxResponseBytes: a larger response body is refused with `.responseTooLarge`.
    ///   - caFile: a PEM bundle to trust *instead of* the system CA bundle (for private endpoints).
    public init(maxConnections: Int, maxResponseBytes: Int = 20 * 1024 * 1024, caFile: String? = nil) {
        let loop = CurlLoop(
            maxConnections: max(1, maxConnections),
            maxResponseBytes: max(0, maxResponseBytes),
            caFile: caFile
        )
        self.loop = loop
        self.thread = Mutex(loop.startThread())
    }

    deinit {
        shutdown()
    }

    /// Performs one exchange. Any HTTP status, 4xx and 5xx included, is a response, not an error.
    public func send(_ request: HTTPRequest) async throws(HTTPTransportError) -> HTTPResponse {
        // Refuse other schemes here so libcurl never sees file://, ftp:// and the like.
        guard Self.hasHTTPScheme(request.url) else { throw .invalidURL(request.url) }
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<HTTPResponse, HTTPTransportError>, Never>) in
            loop.submit(CurlJob(request: request, continuation: continuation))
        }
        return try result.get()
    }

    /// Stops the loop thread, fails requests still queued or in flight with `.shutDown`, and frees
    /// every curl handle. Blocks until the thread has exited (normally milliseconds). Idempotent;
    /// later `send` calls fail with `.shutDown`.
    public func shutdown() {
        thread.withLock { thread in
            loop.requestStop()
            if let running = thread {
                pthread_join(running, nil)
                thread = nil
            }
        }
    }

    /// `http://` or `https://`, ignoring ASCII case, checked on the bytes (no URL parsing).
    static func hasHTTPScheme(_ url: String) -> Bool {
        var bytes = url.utf8.makeIterator()
        for expected in "http".utf8 {
            guard let byte = bytes.next(), byte | 0x20 == expected else { return false }
        }
        var next = bytes.next()
        if next.map({ $0 | 0x20 }) == UInt8(ascii: "s") { next = bytes.next() }
        return next == UInt8(ascii: ":") && bytes.next() == UInt8(ascii: "/") && bytes.next() == UInt8(ascii: "/")
    }

    /// Maps a failed transfer's curl code to the transport error an operator can act on.
    static func error(for code: CURLcode, url: String, detail: String) -> HTTPTransportError {
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut(url: url)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_CONNECT,
            CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return .connectionFailed(url: url, reason: detail)
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE, CURLE_SSL_ISSUER_ERROR,
            CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT,
            CURLE_SSL_SHUTDOWN_FAILED, CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ENGINE_SETFAILED,
            CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED:
            return .tlsFailed(url: url, reason: detail)
        case CURLE_URL_MALFORMAT:
            return .invalidURL(url)
        case CURLE_UNSUPPORTED_PROTOCOL:
            // Other schemes are refused before libcurl sees them (`hasHTTPScheme`): this is an
            // answer that is not HTTP ("Received HTTP/0.9 when not allowed"), the server's fault.
            return .transportFailed(url: url, reason: "the answer was not HTTP (\(detail))")
        default:
            return .transportFailed(url: url, reason: detail)
        }
    }
}
