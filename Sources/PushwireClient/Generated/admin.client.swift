// generated — do not edit. Source: Protos/pushwire/v1/admin.proto. Regenerate with Scripts/generate.

import PushwireWire

/// A typed client of `pushwire.v1.Admin` over any `UnaryCaller`.
///
/// Manages applications. Every method needs the server's admin token
/// (`authorization: Bearer <admin token>`).
public struct AdminClient<Caller: UnaryCaller>: Sendable {
    /// What the calls go through: a connection or a pool.
    public let caller: Caller

    /// Creates a client that calls through `caller`.
    public init(caller: Caller) {
        self.caller = caller
    }

    /// Creates an application; returns its code and its access token (shown only here).
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func createApplication(_ request: CreateApplicationRequest, options: CallOptions = CallOptions()) async throws -> CreateApplicationResponse {
        try await caller.call(Methods.Admin.createApplication, request, options: options)
    }

    /// Renames an application, replaces its APNs settings, or rotates its access token.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func updateApplication(_ request: UpdateApplicationRequest, options: CallOptions = CallOptions()) async throws -> UpdateApplicationResponse {
        try await caller.call(Methods.Admin.updateApplication, request, options: options)
    }

    /// Lists every application, in creation order.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func listApplications(_ request: ListApplicationsRequest, options: CallOptions = CallOptions()) async throws -> ListApplicationsResponse {
        try await caller.call(Methods.Admin.listApplications, request, options: options)
    }
}

extension UnaryCaller {
    /// The `pushwire.v1.Admin` methods, called through this caller.
    public var admin: AdminClient<Self> { AdminClient(caller: self) }
}
