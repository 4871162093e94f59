// The runtime is built on the syscall layer (PushwireSystem: sockets, epoll, clocks, errors) and
// hands its types out in its own API (`SocketAddress`, `SystemError`, `monotonicNanos`), so every
// file of the runtime and every module that imports the runtime sees that layer without naming it.
@_exported import PushwireSystem
