// generated — do not edit. Source: Protos/pushwire/v1/reflection.proto. Regenerate with Scripts/generate.

import PushwireWire

/// A typed client of `pushwire.v1.Reflection` over any `UnaryCaller`.
///
/// Lists the server's methods. Needs no authentication.
public struct ReflectionClient<Caller: UnaryCaller>: Sendable {
    /// What the calls go through: a connection or a pool.
    public let caller: Caller

    /// Creates a client that calls through `caller`.
    public init(caller: Caller) {
        self.caller = caller
    }

    /// Every method path the server answers, with its request and response message names.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func listMethods(_ request: ListMethodsRequest, options: CallOptions = CallOptions()) async throws -> ListMethodsResponse {
        try await caller.call(Methods.Reflection.listMethods, request, options: options)
    }
}

extension UnaryCaller {
    /// The `pushwire.v1.Reflection` methods, called through this caller.
    public var reflection: ReflectionClient<Self> { ReflectionClient(caller: self) }
}
