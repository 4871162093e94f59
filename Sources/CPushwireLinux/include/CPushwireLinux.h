// Linux system calls that Swift's Glibc module does not export (epoll, eventfd, accept4, a
// thread's own niceness), and a thread-local Swift cannot declare (a thread's counter shard).
// Every symbol here is prefixed `cpw_`; the Swift side wraps them once in PushwireRuntime/System.
#ifndef CPUSHWIRE_LINUX_H
#define CPUSHWIRE_LINUX_H

#include <stdint.h>
#include <sys/socket.h>
#include <poll.h>

/// One epoll event, unpacked: glibc's `struct epoll_event` is packed on x86_64, which Swift
/// imports awkwardly, so the shim copies into this plain struct.
typedef struct {
    uint32_t events;
    int32_t fd;
} cpw_epoll_event;

extern const uint32_t CPW_EPOLLIN;
extern const uint32_t CPW_EPOLLOUT;
extern const uint32_t CPW_EPOLLERR;
extern const uint32_t CPW_EPOLLHUP;
extern const uint32_t CPW_EPOLLRDHUP;
extern const uint32_t CPW_EPOLLET;
extern const int CPW_EPOLL_CTL_ADD;
extern const int CPW_EPOLL_CTL_MOD;
extern const int CPW_EPOLL_CTL_DEL;

int cpw_epoll_create(void);
int cpw_epoll_ctl(int epfd, int op, int fd, uint32_t events);
/// Waits like epoll_wait and copies up to `capacity` events into `out`; `scratch` must hold
/// `capacity` native events (`cpw_epoll_event_size()` bytes each).
int cpw_epoll_wait(int epfd, void *scratch, cpw_epoll_event *out, int capacity, int timeout_ms);
int cpw_epoll_event_size(void);

int cpw_eventfd(void);
int cpw_accept4(int fd, struct sockaddr *address, socklen_t *length);
/// ppoll(2) with a nanosecond timeout and no signal mask (Glibc's Swift module hides ppoll: it
/// needs _GNU_SOURCE); a load generator needs the nanoseconds to hold a fixed arrival rate.
int cpw_ppoll(struct pollfd *fds, unsigned long count, uint64_t timeout_ns);
/// Sets the calling thread's niceness (Linux schedules threads, not processes: setpriority(2)
/// with the thread's id); 0 on success, -1 with errno. Raising it needs no privilege.
int cpw_set_thread_niceness(int niceness);
/// Sets the calling thread's niceness to the process's (its main thread's) plus `step`, at most
/// 19, so that a thread meant to yield to its process's others keeps doing so when the whole
/// process runs at another niceness (`nice -n -10 pushwired`), whichever thread started it (a new
/// thread inherits its creator's niceness); 0 on success, -1 with errno.
int cpw_set_thread_niceness_above_process(int step);

/// Names the calling thread for the kernel (`top -H`, /proc/PID/task/*/comm): the first 15
/// bytes of `name` (Linux's limit); pthread_setname_np needs _GNU_SOURCE, which Swift's Glibc
/// module hides. 0 on success, an errno value otherwise.
int cpw_set_thread_name(const char *name);

/// The calling thread's counter shard (`ShardedCounters`): an event loop's thread sets its loop's
/// index once it starts, so that no two loops ever add to the same cache line; -1 (the default)
/// on every other thread, whose shard is then derived from its thread id.
extern __thread int cpw_thread_counter_shard;
static inline int cpw_counter_shard(void) { return cpw_thread_counter_shard; }
static inline void cpw_set_counter_shard(int shard) { cpw_thread_counter_shard = shard; }

#endif
