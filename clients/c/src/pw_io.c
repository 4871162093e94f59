/*
 * The socket layer of the Pushwire C client: non-blocking sockets driven by poll(2), so that
 * every wait is bounded by a deadline. EINTR is retried here and nowhere else.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pushwire_client.h"
#include "pw_internal.h"

int64_t pw_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t pw_deadline_after(int timeout_ms) {
    if (timeout_ms <= 0) return PW_NO_DEADLINE;
    return pw_now_ms() + timeout_ms;
}

int pw_io_wait(int fd, short events, int64_t deadline) {
    for (;;) {
        int wait_ms = -1;
        if (deadline != PW_NO_DEADLINE) {
            int64_t left = deadline - pw_now_ms();
            if (left <= 0) return PW_ERR_TIMEOUT;
            wait_ms = left > 60000 ? 60000 : (int)left;
        }
        struct pollfd pfd = { .fd = fd, .events = events, .revents = 0 };
        int n = poll(&pfd, 1, wait_ms);
        if (n > 0) return PW_OK; /* readable, writable, or an error the next syscall reports */
        if (n < 0 && errno != EINTR) return PW_ERR_SYSTEM;
    }
}

static int connect_one(const struct addrinfo *ai, int64_t deadline) {
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) return PW_ERR_SYSTEM;
    int rc = connect(fd, ai->ai_addr, ai->ai_addrlen);
    if (rc < 0 && errno != EINPROGRESS && errno != EINTR) goto fail;
    if (rc < 0) {
        int w = pw_io_wait(fd, POLLOUT, deadline);
        if (w != PW_OK) { int saved = errno; close(fd); errno = saved; return w; }
        int err = 0;
        socklen_t len = sizeof err;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0) goto fail;
        if (err != 0) { errno = err; goto fail; }
    }
    /* Requests are small and latency matters more than packet count. */
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
fail:;
    int saved = errno;
    close(fd);
    errno = saved;
    return PW_ERR_SYSTEM;
}

int pw_io_connect(const char *host, uint16_t port, int64_t deadline) {
    char service[8];
    snprintf(service, sizeof service, "%u", (unsigned)port);
    struct addrinfo hints;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    struct addrinfo *list = NULL;
    if (getaddrinfo(host, service, &hints, &list) != 0 || list == NULL) return PW_ERR_RESOLVE;
    int result = PW_ERR_RESOLVE;
    for (const struct addrinfo *ai = list; ai != NULL; ai = ai->ai_next) {
        result = connect_one(ai, deadline);
        if (result >= 0 || result == PW_ERR_TIMEOUT) break;
    }
    int saved = errno;
    freeaddrinfo(list);
    errno = saved;
    return result;
}

int pw_io_write_all(int fd, const uint8_t *buf, size_t len, int64_t deadline) {
    size_t done = 0;
    while (done < len) {
        /* MSG_NOSIGNAL: a closed peer is an error to report, not a SIGPIPE to die of. */
        ssize_t n = send(fd, buf + done, len - done, MSG_NOSIGNAL);
        if (n > 0) { done += (size_t)n; continue; }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            int w = pw_io_wait(fd, POLLOUT, deadline);
            if (w != PW_OK) return w;
            continue;
        }
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) return PW_ERR_CLOSED;
        return PW_ERR_SYSTEM;
    }
    return PW_OK;
}

long pw_io_read_some(int fd, uint8_t *buf, size_t cap, int64_t deadline) {
    for (;;) {
        ssize_t n = recv(fd, buf, cap, 0);
        if (n > 0) return (long)n;
        if (n == 0) return PW_ERR_CLOSED;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            int w = pw_io_wait(fd, POLLIN, deadline);
            if (w != PW_OK) return w;
            continue;
        }
        if (errno == ECONNRESET) return PW_ERR_CLOSED;
        return PW_ERR_SYSTEM;
    }
}
