#define _GNU_SOURCE
#include "CPushwireLinux.h"
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <pthread.h>
#include <string.h>

const uint32_t CPW_EPOLLIN = EPOLLIN;
const uint32_t CPW_EPOLLOUT = EPOLLOUT;
const uint32_t CPW_EPOLLERR = EPOLLERR;
const uint32_t CPW_EPOLLHUP = EPOLLHUP;
const uint32_t CPW_EPOLLRDHUP = EPOLLRDHUP;
const uint32_t CPW_EPOLLET = EPOLLET;
const int CPW_EPOLL_CTL_ADD = EPOLL_CTL_ADD;
const int CPW_EPOLL_CTL_MOD = EPOLL_CTL_MOD;
const int CPW_EPOLL_CTL_DEL = EPOLL_CTL_DEL;

int cpw_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cpw_epoll_ctl(int epfd, int op, int fd, uint32_t events) {
    struct epoll_event event = {0};
    event.events = events;
    event.data.fd = fd;
    return epoll_ctl(epfd, op, fd, &event);
}

int cpw_epoll_event_size(void) { return (int)sizeof(struct epoll_event); }

int cpw_epoll_wait(int epfd, void *scratch, cpw_epoll_event *out, int capacity, int timeout_ms) {
    struct epoll_event *events = scratch;
    int count = epoll_wait(epfd, events, capacity, timeout_ms);
    for (int i = 0; i < count; i++) {
        out[i].events = events[i].events;
        out[i].fd = events[i].data.fd;
    }
    return count;
}

int cpw_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int cpw_accept4(int fd, struct sockaddr *address, socklen_t *length) {
    return accept4(fd, address, length, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int cpw_ppoll(struct pollfd *fds, unsigned long count, uint64_t timeout_ns) {
    struct timespec timeout = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    return ppoll(fds, (nfds_t)count, &timeout, NULL);
}

int cpw_set_thread_niceness(int niceness) {
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), niceness);
}

int cpw_set_thread_niceness_above_process(int step) {
    // PRIO_PROCESS with the process id names the main thread (its thread id is the process id).
    errno = 0;
    int process = getpriority(PRIO_PROCESS, (id_t)getpid());
    if (process == -1 && errno != 0) return -1;
    int target = process + step > 19 ? 19 : process + step;
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), target);
}

__thread int cpw_thread_counter_shard = -1;

int cpw_set_thread_name(const char *name) {
    char truncated[16];
    strncpy(truncated, name, sizeof truncated - 1);
    truncated[sizeof truncated - 1] = '\0';
    return pthread_setname_np(pthread_self(), truncated);
}
