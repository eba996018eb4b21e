import CCurl
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One request waiting for, or riding on, the loop thread.
struct CurlJob: Sendable {
    let request: HTTPRequest
    let continuation: CheckedContinuation<Result<HTTPResponse, HTTPTransportError>, Never>

    func fail(_ error: HTTPTransportError) {
        continuation.resume(returning: .failure(error))
    }
}

/// The multi handle and the thread that owns it.
///
/// The loop drives libcurl's socket interface on epoll: `curl_multi_socket_action` for the sockets
/// epoll reports and for libcurl's own timer, never `curl_multi_perform`, which walks every
/// transfer and polls each one's socket on every call (at zero latency that was a large share of
/// the loop thread's CPU; docs/performance.md, "App Store Server API mode"). Other threads wake it
/// through an eventfd.
///
/// `@unchecked Sendable`: `shared` is behind a mutex; everything else (the multi handle, the epoll
/// set, the easy handle pool, the backlog) is touched only by the loop thread. Other threads only
/// write to `wakeFD`, which stays open until the loop object is freed.
final class CurlLoop: @unchecked Sendable {
    private struct Shared {
        var pending: [CurlJob] = []
        var stopping = false
        /// Set when libcurl or the thread could not be set up; every request then fails with it.
        var unavailable: String?
    }

    /// `curl_global_init` must run once per process, before any other libcurl call.
    private static let curlInitialised: Bool = ccurl_global_init_default() == CURLE_OK

    private let shared = Mutex(Shared())
    private let multi: UnsafeMutableRawPointer?
    private let maxActive: Int
    private let maxResponseBytes: Int
    private let caFile: String?
    /// An eventfd: a write wakes the loop from `epoll_wait` (pending jobs, or a stop).
    private let wakeFD: Int32
    /// The sockets libcurl asked to watch, plus `wakeFD`.
    private let epollFD: Int32
    /// libcurl's timer requests, written by the C timer callback (loop thread only).
    private let timer: UnsafeMutablePointer<ccurl_timer>

    // Loop-thread state.
    private var allContexts: [EasyContext] = []
    private var idleContexts: [EasyContext] = []
    private var active = 0
    private var backlog: [CurlJob] = []
    private var backlogHead = 0

    init(maxConnections: Int, maxResponseBytes: Int, caFile: String?) {
        self.maxActive = maxConnections
        self.maxResponseBytes = maxResponseBytes
        self.caFile = caFile
        wakeFD = ccurl_wakeup_eventfd()
        epollFD = ccurl_epoll_create()
        timer = .allocate(capacity: 1)
        timer.initialize(to: ccurl_timer(timeout_ms: -1, generation: 0))
        let events = wakeFD >= 0 && epollFD >= 0 && ccurl_epoll_add_input(epollFD, wakeFD) == 0
        let multi = Self.curlInitialised && events ? curl_multi_init() : nil
        if let multi, ccurl_multi_use_epoll(multi, epollFD, timer) != CURLM_OK {
            curl_multi_cleanup(multi)
            self.multi = nil
        } else {
            self.multi = multi
        }
        guard let multi = self.multi else {
            shared.withLock {
                $0.stopping = true
                $0.unavailable = events ? "libcurl could not be initialised" : "could not set up epoll for the HTTP thread"
            }
            return
        }
        // Transfers beyond maxActive wait in `backlog`, so these limits only matter when requests go
        // to several hosts: the total bound makes curl close an idle connection to one host before
        // opening another, and the cache keeps every idle connection we are allowed to have.
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, maxConnections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, maxConnections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maxConnections)
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD) }
        if epollFD >= 0 { close(epollFD) }
        timer.deallocate()
    }

    /// Starts the loop thread; `nil` if it could not be started (requests then fail).
    func startThread() -> pthread_t? {
        guard let multi else { return nil }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let rc = pthread_create(&thread, nil, { context in
            let loop = Unmanaged<CurlLoop>.fromOpaque(context!).takeRetainedValue()
            loop.run()
            return nil
        }, context)
        guard rc == 0 else {
            Unmanaged<CurlLoop>.fromOpaque(context).release()
            shared.withLock {
                $0.stopping = true
                $0.unavailable = "could not start the HTTP thread (pthread_create: \(rc))"
            }
            curl_multi_cleanup(multi)
            return nil
        }
        return thread
    }

    /// Queues a job for the loop thread, or fails it at once if the loop is gone.
    func submit(_ job: CurlJob) {
        enum Submitted { case wakeUp, rejected(HTTPTransportError) }
        let rejection: Submitted? = shared.withLock { shared in
            if let reason = shared.unavailable {
                return .rejected(.transportFailed(url: job.request.url, reason: reason))
            }
            if shared.stopping { return .rejected(.shutDown) }
            // One wakeup per batch: while `pending` is non-empty an earlier wakeup is still unread
            // (the loop reads the eventfd before it empties `pending`, and a write persists until read).
            let needsWakeup = shared.pending.isEmpty
            shared.pending.append(job)
            return needsWakeup ? .wakeUp : nil
        }
        switch rejection {
        case .wakeUp: wake()  // outside the lock: the loop thread takes it too
        case .rejected(let error): job.fail(error)
        case nil: break
        }
    }

    /// Asks the loop to stop; it fails what is outstanding and frees the handles on its way out.
    func requestStop() {
        let wasRunning = shared.withLock { shared in
            guard !shared.stopping else { return false }
            shared.stopping = true
            return true
        }
        if wasRunning { wake() }
    }

    /// Makes the loop's next (or current) `epoll_wait` return.
    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    // MARK: - Loop thread

    private func run() {
        guard let multi else { return }
        Thread.current.name = "subrecon-curl"  // shows in top -H, gdb and crash reports
        // A write to a peer that has gone can raise SIGPIPE on this thread; an EPIPE error is enough.
        var sigpipe = sigset_t()
        sigemptyset(&sigpipe)
        sigaddset(&sigpipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &sigpipe, nil)

        var incoming: [CurlJob] = []
        var running: Int32 = 0
        let capacity = 256
        let readyFDs = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        let readyEvents = UnsafeMutablePointer<Int32>.allocate(capacity: capacity)
        defer {
            readyFDs.deallocate()
            readyEvents.deallocate()
        }
        // libcurl's timer as a deadline on the monotonic clock (nil: none requested).
        var seenGeneration = timer.pointee.generation
        var deadlineNs: UInt64?
        func noteTimer() {
            guard timer.pointee.generation != seenGeneration else { return }
            seenGeneration = timer.pointee.generation
            let ms = timer.pointee.timeout_ms
            deadlineNs = ms < 0 ? nil : Self.nowNs() + UInt64(ms) * 1_000_000
        }
        while true {
            // Swap buffers so neither side allocates in the steady state.
            let stopping = shared.withLock { shared in
                if !shared.pending.isEmpty { swap(&incoming, &shared.pending) }
                return shared.stopping
            }
            if stopping { break }
            if !incoming.isEmpty {
                backlog.append(contentsOf: incoming)
                incoming.removeAll(keepingCapacity: true)
            }
            startFromBacklog(multi)
            noteTimer()
            if let deadline = deadlineNs, Self.nowNs() >= deadline {
                deadlineNs = nil
                _ = ccurl_multi_socket_action(multi, CURL_SOCKET_TIMEOUT, 0, &running)
                noteTimer()
            }
            let finished = collectFinished(multi)
            // Freed slots with work waiting: start it now rather than after the next wait.
            if finished > 0 && backlogHead < backlog.count { continue }
            // Returns on socket activity, a wakeup, curl's own next timeout, or after 1 s at worst.
            var waitMs: Int32 = 1000
            if let deadline = deadlineNs {
                let now = Self.nowNs()
                waitMs = deadline <= now ? 0 : Int32(min(1000, (deadline - now + 999_999) / 1_000_000))
            }
            let ready = ccurl_epoll_wait(epollFD, readyFDs, readyEvents, Int32(capacity), waitMs)
            guard ready > 0 else { continue }
            for index in 0..<Int(ready) {
                let fd = readyFDs[index]
                if fd == wakeFD {
                    var count: UInt64 = 0
                    _ = read(wakeFD, &count, 8)
                } else {
                    _ = ccurl_multi_socket_action(multi, fd, readyEvents[index], &running)
                }
            }
        }
        tearDown(multi)
    }

    private static func nowNs() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    private func startFromBacklog(_ multi: UnsafeMutableRawPointer) {
        while active < maxActive && backlogHead < backlog.count {
            let job = backlog[backlogHead]
            backlogHead += 1
            if backlogHead == backlog.count {
                backlog.removeAll(keepingCapacity: true)
                backlogHead = 0
            } else if backlogHead >= 1024 && backlogHead * 2 >= backlog.count {
                // Drop consumed jobs (and the request bodies they hold) under steady inflow.
                backlog.removeFirst(backlogHead)
                backlogHead = 0
            }
            start(job, on: multi)
        }
    }

    private func start(_ job: CurlJob, on multi: UnsafeMutableRawPointer) {
        let context: EasyContext
        if let idle = idleContexts.popLast() {
            context = idle
        } else if let fresh = EasyContext(maxResponseBytes: maxResponseBytes) {
            allContexts.append(fresh)
            context = fresh
        } else {
            job.fail(.transportFailed(url: job.request.url, reason: "could not create a curl handle"))
            return
        }
        if let problem = context.configure(for: job.request, caFile: caFile) {
            idleContexts.append(context)
            job.fail(problem)
            return
        }
        let added = curl_multi_add_handle(multi, context.handle)
        guard added == CURLM_OK else {
            idleContexts.append(context)
            let reason = String(cString: curl_multi_strerror(added))
            job.fail(.transportFailed(url: job.request.url, reason: reason))
            return
        }
        context.job = job
        active += 1
    }

    /// Completes every finished transfer; returns how many finished.
    private func collectFinished(_ multi: UnsafeMutableRawPointer) -> Int {
        var finished = 0
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            // Read everything from `message` before remove_handle invalidates it.
            let code = message.pointee.data.result
            var opaque: UnsafeMutableRawPointer?
            _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &opaque)
            _ = curl_multi_remove_handle(multi, easy)
            guard let opaque else { continue }
            let context = Unmanaged<EasyContext>.fromOpaque(opaque).takeUnretainedValue()
            active -= 1
            finished += 1
            guard let job = context.job else { continue }
            context.job = nil
            let result = context.takeResult(code: code, url: job.request.url)
            idleContexts.append(context)
            job.continuation.resume(returning: result)
        }
        return finished
    }

    private func tearDown(_ multi: UnsafeMutableRawPointer) {
        // `stopping` is set, so nothing can be appended to `pending` any more.
        let leftovers = shared.withLock { shared in
            let pending = shared.pending
            shared.pending = []
            return pending
        }
        for job in backlog[backlogHead...] { job.fail(.shutDown) }
        backlog = []
        for job in leftovers { job.fail(.shutDown) }
        // libcurl's order: remove from the multi, clean up the easies, then the multi.
        for context in allContexts {
            if let job = context.job {
                _ = curl_multi_remove_handle(multi, context.handle)
                context.job = nil
                job.fail(.shutDown)
            }
            context.destroy()
        }
        allContexts = []
        idleContexts = []
        curl_multi_cleanup(multi)
    }
}

/// One pooled easy handle plus the state of the transfer it is running. Loop thread only; libcurl's
/// callbacks reach it through an unretained pointer, which `CurlLoop.allContexts` keeps valid.
final class EasyContext {
    let handle: UnsafeMutableRawPointer
    let maxResponseBytes: Int
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Header list for the current request and the caller's headers it was built from: requests
    /// normally carry identical headers, so the list is rebuilt only when they change.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var headerListSource: [(name: String, value: String)] = []

    var job: CurlJob?
    private var body: [UInt8] = []
    private var headers: [String: String] = [:]
    private var bodyTooLarge = false
    /// False for HEAD, whose Content-Length describes a body that never comes.
    private var expectsBody = true

    init?(maxResponseBytes: Int) {
        guard let handle = curl_easy_init() else { return nil }
        self.handle = handle
        self.maxResponseBytes = maxResponseBytes
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer[0] = 0
    }

    func destroy() {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        headerList = nil
        errorBuffer.deallocate()
    }

    /// Resets the handle and sets it up for `request`; returns the error to fail it with, if any.
    func configure(for request: HTTPRequest, caFile: String?) -> HTTPTransportError? {
        // Reset keeps the handle's caches; options are set afresh so nothing leaks between requests.
        curl_easy_reset(handle)
        errorBuffer[0] = 0
        body.removeAll()
        headers.removeAll()
        bodyTooLarge = false
        expectsBody = request.method != "HEAD"

        if !sameHeaders(request.headers, headerListSource) || headerList == nil {
            guard let list = Self.makeHeaderList(request.headers) else {
                return .transportFailed(url: request.url, reason: "a header name or value contains a line break")
            }
            curl_slist_free_all(headerList)
            headerList = list
            headerListSource = request.headers
        }

        let timeoutMS = Self.milliseconds(request.timeout)
        let me = Unmanaged.passUnretained(self).toOpaque()
        var failed = CURLE_OK
        func check(_ code: CURLcode) { if failed == CURLE_OK { failed = code } }

        check(ccurl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer))
        check(ccurl_easy_setopt_string(handle, CURLOPT_URL, request.url))
        check(ccurl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        check(ccurl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1))
        check(ccurl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1))
        check(ccurl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMS))
        check(ccurl_easy_setopt_long(handle, CURLOPT_CONNECTTIMEOUT_MS, min(timeoutMS, 10_000)))
        check(ccurl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYPEER, 1))
        check(ccurl_easy_setopt_long(handle, CURLOPT_SSL_VERIFYHOST, 2))
        // No CA directory: with one, libcurl skips its cached CA store and re-parses the bundle on
        // every TLS connection, a costly parse each time (docs/performance.md, "Earlier figures
        // behind the code's choices").
        check(ccurl_easy_setopt_string(handle, CURLOPT_CAPATH, nil))
        if let caFile { check(ccurl_easy_setopt_string(handle, CURLOPT_CAINFO, caFile)) }
        check(ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList))
        check(ccurl_easy_setopt_pointer(handle, CURLOPT_PRIVATE, me))
        check(ccurl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, me))
        check(ccurl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, me))
        check(ccurl_easy_setopt_write_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, me in
            Unmanaged<EasyContext>.fromOpaque(me!).takeUnretainedValue()
                .receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
        })
        check(ccurl_easy_setopt_write_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, me in
            Unmanaged<EasyContext>.fromOpaque(me!).takeUnretainedValue()
                .receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
        })

        switch request.method {
        case "GET" where request.body.isEmpty:
            check(ccurl_easy_setopt_long(handle, CURLOPT_HTTPGET, 1))
        case "HEAD":
            check(ccurl_easy_setopt_long(handle, CURLOPT_NOBODY, 1))
        default:
            // COPYPOSTFIELDS copies the body, so the request's array need not outlive this call.
            check(ccurl_easy_setopt_off_t(handle, CURLOPT_POSTFIELDSIZE_LARGE, request.body.count))
            if request.body.isEmpty {
                check(ccurl_easy_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, ""))
            } else {
                request.body.withUnsafeBytes { bytes in
                    check(ccurl_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress))
                }
            }
            if request.method != "POST" {
                check(ccurl_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, request.method))
            }
        }

        guard failed == CURLE_OK else {
            return .transportFailed(url: request.url, reason: String(cString: curl_easy_strerror(failed)))
        }
        return nil
    }

    /// The finished transfer's outcome; hands the collected body and headers over without copying.
    func takeResult(code: CURLcode, url: String) -> Result<HTTPResponse, HTTPTransportError> {
        defer {
            body = []
            headers = [:]
        }
        if code == CURLE_OK {
            var status = 0
            _ = ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
            return .success(HTTPResponse(status: status, headers: headers, body: body))
        }
        if bodyTooLarge { return .failure(.responseTooLarge(url: url, limit: maxResponseBytes)) }
        let detail = errorBuffer[0] != 0
            ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
        return .failure(CurlTransport.error(for: code, url: url, detail: detail))
    }

    // MARK: - libcurl callbacks (loop thread)

    /// Returning anything but `bytes.count` makes libcurl abort the transfer (CURLE_WRITE_ERROR).
    private func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard body.count + bytes.count <= maxResponseBytes else {
            bodyTooLarge = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// One raw header line per call, CRLF included; the status line starts each response.
    private func receiveHeader(_ line: UnsafeRawBufferPointer) -> Int {
        if line.count > 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F {  // "HTTP/"
            // A new status line (after a 1xx, say): only the final response's headers count.
            headers.removeAll(keepingCapacity: true)
            return line.count
        }
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return line.count }
        let name = String(decoding: line[..<colon].lazy.map(Self.asciiLowercased), as: UTF8.self)
        var start = colon + 1
        var end = line.count
        while start < end, Self.isWhitespace(line[start]) { start += 1 }
        while end > start, Self.isWhitespace(line[end - 1]) { end -= 1 }
        let value = String(decoding: line[start..<end], as: UTF8.self)

        if expectsBody, name == "content-length", let announced = Int(value) {
            // Refuse before receiving a byte of a body that will not fit.
            guard announced <= maxResponseBytes else {
                bodyTooLarge = true
                return 0
            }
            body.reserveCapacity(min(announced, 1 << 20))
        }
        if let previous = headers[name] {
            headers[name] = previous + ", " + value  // RFC 9110 §5.3: repeated fields combine so
        } else {
            headers[name] = value
        }
        return line.count
    }

    // MARK: - Helpers

    private static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        let (ms, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? 1 : Int.max }
        // 0 would mean "no timeout" to libcurl.
        return max(1, Int(ms + attoseconds / 1_000_000_000_000_000))
    }

    private func sameHeaders(_ a: [(name: String, value: String)], _ b: [(name: String, value: String)]) -> Bool {
        guard a.count == b.count else { return false }
        for index in a.indices where a[index].name != b[index].name || a[index].value != b[index].value {
            return false
        }
        return true
    }

    /// The caller's headers, plus `Expect:` (no 100-continue round trip) and an empty
    /// `Content-Type:` (drops libcurl's form-urlencoded default) unless the caller set those.
    private static func makeHeaderList(_ fields: [(name: String, value: String)]) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        var hasExpect = false
        var hasContentType = false
        func add(_ line: String) -> Bool {
            guard let longer = curl_slist_append(list, line) else { return false }
            list = longer
            return true
        }
        for field in fields {
            let invalid = field.name.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
                || field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
            let lowered = field.name.lowercased()
            hasExpect = hasExpect || lowered == "expect"
            hasContentType = hasContentType || lowered == "content-type"
            // "Name;" is libcurl's spelling of a header sent with an empty value.
            let line = field.value.isEmpty ? field.name + ";" : field.name + ": " + field.value
            guard !invalid, add(line) else {
                curl_slist_free_all(list)
                return nil
            }
        }
        guard hasExpect || add("Expect:"), hasContentType || add("Content-Type:") else {
            curl_slist_free_all(list)
            return nil
        }
        return list
    }
}
