#if canImport(Glibc)
import Glibc
#endif

/// A system call failed: which call, and the `errno` it left.
///
/// One error type for every syscall wrapper in `System/`, so callers log the same two facts
/// whatever failed (as NIOPosix's `IOError`).
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name of the call, e.g. `bind`.
    public var call: String
    /// The `errno` value.
    public var errno: Int32

    /// Creates an error for `call` with `errno`.
    public init(_ call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    /// `bind: Address already in use (errno 98)`.
    public var description: String {
        let text = strerror(errno).map { String(cString: $0) } ?? "unknown error"
        return "\(call): \(text) (errno \(errno))"
    }
}

/// The result of a non-blocking I/O call: either it did something, or the descriptor would block.
///
/// EAGAIN is an ordinary outcome on a non-blocking socket, so it is a value, not a thrown error.
@frozen
public enum IOResult<Value> {
    /// The call completed with `Value` (for reads, 0 means end of stream).
    case processed(Value)
    /// The call would have blocked (EAGAIN/EWOULDBLOCK); wait for readiness.
    case wouldBlock
}

extension IOResult: Sendable where Value: Sendable {}
