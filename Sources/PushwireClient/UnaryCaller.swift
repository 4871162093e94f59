import PushwireWire

/// Per-call options: deadline and metadata.
public struct CallOptions: Sendable {
    /// How long the call may take; sent to the server as `timeout_ms`. `nil` uses the server's default.
    public var timeout: Duration?
    /// Extra metadata, e.g. `("authorization", "Bearer …")`; keys are lower-case.
    public var metadata: [(key: String, value: String)]

    /// Creates options.
    public init(timeout: Duration? = nil, metadata: [(key: String, value: String)] = []) {
        self.timeout = timeout
        self.metadata = metadata
    }

    /// Options carrying `authorization: Bearer <token>`.
    public static func bearer(_ token: String, timeout: Duration? = nil) -> CallOptions {
        CallOptions(timeout: timeout, metadata: [("authorization", "Bearer \(token)")])
    }
}

/// Anything that can make a unary call: a connection, a pool. The generated typed service clients
/// (`caller.devices.registerDevice(…)`) are written once over this.
public protocol UnaryCaller: Sendable {
    /// Calls `method` with `request`.
    /// - Throws: `RPCError` with the server's status, or with `.unavailable` / `.deadlineExceeded`
    ///   / `.cancelled` for local failures.
    func call<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        _ request: Request,
        options: CallOptions
    ) async throws -> Response
}
