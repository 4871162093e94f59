/// A call that ended with a status other than OK: what a handler throws to answer with a status,
/// and what a client throws when the server answered with one.
///
/// Kept apart from local failures (a socket that closed, a frame that did not decode): those are
/// the runtime's own error types, which the runtime maps onto an `RPCError` when it must answer.
public struct RPCError: Error, Sendable, CustomStringConvertible {
    /// The status code; never `.ok`.
    public var code: StatusCode
    /// What went wrong, for a person.
    public var message: String
    /// The local error behind this one, if any; never sent on the wire.
    public var cause: (any Error & Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the status code; `.ok` is replaced by `.unknown`, since OK is not an error.
    ///   - message: what went wrong, for a person.
    ///   - cause: the local error behind this one, kept for logs.
    public init(_ code: StatusCode, _ message: String, cause: (any Error & Sendable)? = nil) {
        self.code = code == .ok ? .unknown : code
        self.message = message
        self.cause = cause
    }

    /// `NAME: message`, e.g. `INVALID_ARGUMENT: hwid is empty`.
    public var description: String {
        message.isEmpty ? code.name : "\(code.name): \(message)"
    }
}

extension RPCError: Equatable {
    /// Errors are equal when code and message are; the cause is not compared.
    public static func == (lhs: RPCError, rhs: RPCError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message
    }
}

extension RPCError {
    /// A caller's value as quoted in an error message: at most `WireLimits.maxEchoedBytes` bytes,
    /// cut at a character boundary and ended with "…" when longer, so that an error never grows
    /// with the request (an UNIMPLEMENTED once echoed a 4 MiB method path).
    public static func echo(_ value: String) -> String {
        let limit = WireLimits.maxEchoedBytes
        guard value.utf8.count > limit else { return value }
        var cut = ""
        var bytes = 0
        for character in value {
            let size = character.utf8.count
            if bytes + size > limit { break }
            cut.append(character)
            bytes += size
        }
        return cut + "…"
    }
}
