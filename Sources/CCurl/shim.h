// Typed, non-variadic wrappers around libcurl's variadic setopt/getinfo calls:
// Swift cannot call C variadic functions, so each argument type gets one wrapper.
#ifndef SUBRECON_CCURL_SHIM_H
#define SUBRECON_CCURL_SHIM_H

// The gcc type-check macros only apply to constant option arguments; the wrappers
// pass options through as parameters, so the checks add nothing but noise here.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

// CURL_GLOBAL_DEFAULT is a macro expression Swift does not import reliably.
static inline CURLcode ccurl_global_init_default(void) {
    return curl_global_init(CURL_GLOBAL_DEFAULT);
}

static inline CURLcode ccurl_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/// C strings; libcurl copies them (all string options except CURLOPT_POSTFIELDS).
static inline CURLcode ccurl_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/// Buffers (CURLOPT_COPYPOSTFIELDS, CURLOPT_ERRORBUFFER) and opaque user pointers.
static inline CURLcode ccurl_easy_setopt_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

/// CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION share this signature.
static inline CURLcode ccurl_easy_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode ccurl_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode ccurl_easy_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/// CURLINFO_PRIVATE and other pointer-valued infos.
static inline CURLcode ccurl_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode ccurl_multi_setopt_long(CURLM *multi, CURLMoption option, long value) {
    return curl_multi_setopt(multi, option, value);
}

// --- The event loop: libcurl's socket interface on epoll ------------------------------------
// curl_multi_perform walks every transfer and polls each socket on every call (a poll syscall
// per transfer per wakeup); curl_multi_socket_action touches only the sockets epoll reports.
// The two callbacks live here, in C, so Swift needs no @convention(c) closures: the socket
// callback keeps the epoll set in step with what libcurl wants to watch, and the timer callback
// records libcurl's next timeout for the loop to honour.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <stdint.h>

/// A non-blocking, close-on-exec eventfd (the loop's wakeup), or -1.
static inline int ccurl_wakeup_eventfd(void) {
    return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
}

/// A close-on-exec epoll instance, or -1.
static inline int ccurl_epoll_create(void) {
    return epoll_create1(EPOLL_CLOEXEC);
}

/// libcurl's latest timer request: `timeout_ms` (-1: none) and a counter bumped on each change.
struct ccurl_timer {
    long timeout_ms;
    unsigned long generation;
};

static inline int ccurl_epoll_socket_callback(CURL *easy, curl_socket_t s, int what, void *userp, void *socketp) {
    (void)easy;
    (void)socketp;
    int epfd = (int)(intptr_t)userp;
    if (what == CURL_POLL_REMOVE) {
        // The socket may already be closed (epoll then dropped it itself): nothing to report.
        (void)epoll_ctl(epfd, EPOLL_CTL_DEL, s, NULL);
        return 0;
    }
    struct epoll_event event = {0};
    event.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0);
    event.data.fd = s;
    if (epoll_ctl(epfd, EPOLL_CTL_MOD, s, &event) != 0) {
        if (epoll_ctl(epfd, EPOLL_CTL_ADD, s, &event) != 0) return -1;
    }
    return 0;
}

static inline int ccurl_timer_callback(CURLM *multi, long timeout_ms, void *userp) {
    (void)multi;
    struct ccurl_timer *timer = (struct ccurl_timer *)userp;
    timer->timeout_ms = timeout_ms;
    timer->generation += 1;
    return 0;
}

/// Points the multi handle's socket and timer callbacks at `epfd` and `timer`.
static inline CURLMcode ccurl_multi_use_epoll(CURLM *multi, int epfd, struct ccurl_timer *timer) {
    CURLMcode rc = curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, ccurl_epoll_socket_callback);
    if (rc == CURLM_OK) rc = curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, (void *)(intptr_t)epfd);
    if (rc == CURLM_OK) rc = curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, ccurl_timer_callback);
    if (rc == CURLM_OK) rc = curl_multi_setopt(multi, CURLMOPT_TIMERDATA, (void *)timer);
    return rc;
}

/// Adds `fd` to `epfd` for input (the loop's wakeup eventfd).
static inline int ccurl_epoll_add_input(int epfd, int fd) {
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.fd = fd;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}

/// epoll_wait into two plain arrays (the kernel's struct is packed on x86_64): each ready fd and
/// the libcurl CURL_CSELECT_* bits for it. Hang-ups and errors are reported as readable so that
/// libcurl reads the end of the stream or the error itself.
static inline int ccurl_epoll_wait(int epfd, int *fds, int *cselect, int capacity, int timeout_ms) {
    struct epoll_event events[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        unsigned flags = events[i].events;
        fds[i] = events[i].data.fd;
        cselect[i] = ((flags & (EPOLLIN | EPOLLHUP | EPOLLERR)) ? CURL_CSELECT_IN : 0)
            | ((flags & EPOLLOUT) ? CURL_CSELECT_OUT : 0);
    }
    return count;
}

static inline CURLMcode ccurl_multi_socket_action(CURLM *multi, curl_socket_t s, int cselect, int *running) {
    return curl_multi_socket_action(multi, s, cselect, running);
}

#endif
