import PushwireRuntime
import PushwireWire

/// Where the services register their handlers: the RPC server, or a test double.
///
/// Mirrors the runtime's `Server` (`register` on the event loop, `registerAsync` in a task,
/// `registerBlocking` on the blocking pool), so that the server conforms with three one-line
/// forwarders (Server+MethodRegistrar.swift); handlers see the call's metadata as key/value pairs.
public protocol MethodRegistrar {
    /// A cheap handler run on the event loop.
    func addOnLoop<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable ([(key: String, value: String)], Request) throws(RPCError) -> Response)
    /// A handler that awaits (the store's group commit), run in a task.
    func addAsync<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable ([(key: String, value: String)], Request) async throws(RPCError) -> Response)
    /// A handler that blocks briefly (a store read), run on a blocking pool.
    func addBlocking<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable ([(key: String, value: String)], Request) throws(RPCError) -> Response)
    /// A handler run on the event loop that answers later through `complete`, called exactly once
    /// from any thread; it must not block (a default runs it in a task).
    func addCallback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable ([(key: String, value: String)], Request,
                                      _ complete: @escaping @Sendable (Result<Response, RPCError>) -> Void) -> Void)
    /// A raw fast path in front of a method added with one of the other functions (a default
    /// ignores it).
    func addRawFastPath<Request, Response>(_ method: MethodDescriptor<Request, Response>, _ handler: @escaping RawHandler)
    /// A handler whose `fast` path may answer on the event loop, falling back to the awaiting
    /// `slow` path when it returns nil (a default runs both in a task).
    func addOnLoopWithFallback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        fast: @escaping @Sendable ([(key: String, value: String)], Request) throws(RPCError) -> Response?,
        slow: @escaping @Sendable ([(key: String, value: String)], Request) async throws(RPCError) -> Response)
}

extension MethodRegistrar {
    /// Runs `handler` in a task and awaits its completion: for registrars without a loop.
    public func addCallback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable ([(key: String, value: String)], Request,
                                      _ complete: @escaping @Sendable (Result<Response, RPCError>) -> Void) -> Void
    ) {
        addAsync(method) { metadata, request async throws(RPCError) in
            let result: Result<Response, RPCError> = await withCheckedContinuation { continuation in
                handler(metadata, request) { continuation.resume(returning: $0) }
            }
            return try result.get()
        }
    }

    /// A raw fast path in front of a method added with one of the other functions (see
    /// `Server.registerRawFastPath`): it sees the request message's bytes before any decoding
    /// and answers, answers later, or declines to the regular handler. This default ignores it,
    /// so the regular handler answers every call.
    public func addRawFastPath<Request, Response>(_ method: MethodDescriptor<Request, Response>, _ handler: @escaping RawHandler) {}

    /// A handler with a cheap path that may answer on the event loop (`fast` returns a response)
    /// and an awaiting path for the rest (`fast` returns nil), e.g. an answer from a cache on the
    /// loop and a store write in a task.
    ///
    /// This default runs both in a task; a registrar that can answer on the loop and hop off it
    /// only when needed overrides it.
    public func addOnLoopWithFallback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        fast: @escaping @Sendable ([(key: String, value: String)], Request) throws(RPCError) -> Response?,
        slow: @escaping @Sendable ([(key: String, value: String)], Request) async throws(RPCError) -> Response
    ) {
        addAsync(method) { metadata, request async throws(RPCError) in
            if let response = try fast(metadata, request) { return response }
            return try await slow(metadata, request)
        }
    }
}
