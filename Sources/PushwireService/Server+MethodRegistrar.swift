import PushwireRuntime
import PushwireWire

/// The runtime's server is where `PushwireServices.register(on:)` puts its handlers.
extension Server: MethodRegistrar {
    public func addOnLoop<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable ([(key: String, value: String)], Request) throws(RPCError) -> Response
    ) {
        register(method) { context, request throws(RPCError) in try handler(context.metadataPairs, request) }
    }

    public func addAsync<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable ([(key: String, value: String)], Request) async throws(RPCError) -> Response
    ) {
        registerAsync(method) { context, request async throws(RPCError) in try await handler(context.metadataPairs, request) }
    }

    public func addBlocking<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable ([(key: String, value: String)], Request) throws(RPCError) -> Response
    ) {
        registerBlocking(method) { context, request throws(RPCError) in try handler(context.metadataPairs, request) }
    }

    public func addCallback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        handler: @escaping @Sendable ([(key: String, value: String)], Request,
                                      _ complete: @escaping @Sendable (Result<Response, RPCError>) -> Void) -> Void
    ) {
        registerCallback(method) { context, request, complete in handler(context.metadataPairs, request, complete) }
    }

    public func addOnLoopWithFallback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        fast: @escaping @Sendable ([(key: String, value: String)], Request) throws(RPCError) -> Response?,
        slow: @escaping @Sendable ([(key: String, value: String)], Request) async throws(RPCError) -> Response
    ) {
        registerWithFallback(
            method,
            fast: { context, request throws(RPCError) in try fast(context.metadataPairs, request) },
            slow: { context, request async throws(RPCError) in try await slow(context.metadataPairs, request) })
    }
}

extension Server {
    /// Forwards to `registerRawFastPath`.
    public func addRawFastPath<Request, Response>(_ method: MethodDescriptor<Request, Response>, _ handler: @escaping RawHandler) {
        registerRawFastPath(method, handler)
    }
}

extension RequestContext {
    /// The metadata as key/value pairs.
    var metadataPairs: [(key: String, value: String)] { metadata.map { (key: $0.key, value: $0.value) } }
}
