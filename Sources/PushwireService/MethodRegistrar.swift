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
}
