import Glibc

/// A failed system call: its name and errno, for messages like `connect: Connection refused`.
struct SystemError: Error, CustomStringConvertible {
    var call: String
    var errno: Int32
    var description: String { "\(call): \(String(cString: strerror(errno)))" }
}

/// The monotonic clock in nanoseconds: the one clock every latency in the harness is read from.
@inline(__always)
func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// CPU seconds (user + system) spent by the calling thread so far (CLOCK_THREAD_CPUTIME_ID).
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Resolves `host:port` (or `[v6]:port`) and opens a TCP connection with TCP_NODELAY, blocking.
func connectTCP(_ target: String) throws(SystemError) -> Int32 {
    guard let (host, port) = splitHostPort(target) else { throw SystemError(call: "parse \(target)", errno: EINVAL) }
    var hints = addrinfo()
    hints.ai_family = AF_UNSPEC
    hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
    var list: UnsafeMutablePointer<addrinfo>?
    let rc = getaddrinfo(host, port, &hints, &list)
    guard rc == 0, let first = list else { throw SystemError(call: "getaddrinfo \(host)", errno: EHOSTUNREACH) }
    defer { freeaddrinfo(list) }
    var lastErrno: Int32 = ECONNREFUSED
    var cursor: UnsafeMutablePointer<addrinfo>? = first
    while let info = cursor {
        cursor = info.pointee.ai_next
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        if fd < 0 { lastErrno = errno; continue }
        if connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return fd
        }
        lastErrno = errno
        close(fd)
    }
    throw SystemError(call: "connect \(target)", errno: lastErrno)
}

/// `host:port` → (host, port); `[::1]:7355` → (`::1`, `7355`).
func splitHostPort(_ target: String) -> (String, String)? {
    if target.hasPrefix("["), let close = target.firstIndex(of: "]") {
        let host = String(target[target.index(after: target.startIndex)..<close])
        let rest = target[target.index(after: close)...]
        guard rest.hasPrefix(":"), rest.count > 1 else { return nil }
        return (host, String(rest.dropFirst()))
    }
    guard let colon = target.lastIndex(of: ":") else { return nil }
    let host = String(target[..<colon])
    let port = String(target[target.index(after: colon)...])
    guard !host.isEmpty, !port.isEmpty else { return nil }
    return (host, port)
}

func setNonBlocking(_ fd: Int32) {
    let flags = fcntl(fd, F_GETFL)
    _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
}

/// Writes all of `bytes` to a blocking descriptor, retrying on EINTR and short writes.
func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
    guard let base = bytes.baseAddress else { return true }
    var offset = 0
    while offset < bytes.count {
        let n = write(fd, base + offset, bytes.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            return false
        }
        offset += n
    }
    return true
}

/// Writes a line to standard error.
func printError(_ text: String) {
    var line = text
    if !line.hasSuffix("\n") { line += "\n" }
    writeStandardError(line)
}

/// Writes `text` to file descriptor 2 unbuffered (the C `stderr` global is not concurrency-safe).
func writeStandardError(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { writeAll(2, UnsafeRawBufferPointer($0)) }
}

/// ppoll(2), looked up at run time: Glibc's Swift module hides it (it needs _GNU_SOURCE), and the
/// harness needs its nanosecond timeout to keep a fixed arrival rate without spinning.
/// Called through a `@convention(c)` pointer, so the C calling convention is kept.
private typealias PPollFunction = @convention(c) (
    UnsafeMutablePointer<pollfd>?, nfds_t, UnsafePointer<timespec>?, UnsafeRawPointer?
) -> Int32

private let ppollFunction: PPollFunction? = {
    guard let process = dlopen(nil, RTLD_NOW), let symbol = dlsym(process, "ppoll") else { return nil }
    return unsafeBitCast(symbol, to: PPollFunction.self)
}()

/// Waits for `fds` for at most `nanoseconds`; falls back to poll(2)'s milliseconds (rounded up)
/// when ppoll is missing. Returns poll's result.
func pollFor(_ fds: inout [pollfd], nanoseconds: UInt64) -> Int32 {
    if let ppoll = ppollFunction {
        var timeout = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        return fds.withUnsafeMutableBufferPointer { ppoll($0.baseAddress, nfds_t($0.count), &timeout, nil) }
    }
    let ms = Int32(min((nanoseconds + 999_999) / 1_000_000, UInt64(Int32.max)))
    return poll(&fds, nfds_t(fds.count), ms)
}
