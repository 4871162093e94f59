// generated — do not edit. Source: Protos/pushwire/v1/health.proto. Regenerate with Scripts/generate.

import PushwireWire

/// A typed client of `pushwire.v1.Health` over any `UnaryCaller`.
///
/// Answers whether the server is serving. Needs no authentication.
public struct HealthClient<Caller: UnaryCaller>: Sendable {
    /// What the calls go through: a connection or a pool.
    public let caller: Caller

    /// Creates a client that calls through `caller`.
    public init(caller: Caller) {
        self.caller = caller
    }

    /// The serving status of the whole server, or of one service.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func check(_ request: HealthCheckRequest, options: CallOptions = CallOptions()) async throws -> HealthCheckResponse {
        try await caller.call(Methods.Health.check, request, options: options)
    }
}

extension UnaryCaller {
    /// The `pushwire.v1.Health` methods, called through this caller.
    public var health: HealthClient<Self> { HealthClient(caller: self) }
}
