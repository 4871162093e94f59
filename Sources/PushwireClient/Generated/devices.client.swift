// generated — do not edit. Source: Protos/pushwire/v1/devices.proto. Regenerate with Scripts/generate.

import PushwireWire

/// A typed client of `pushwire.v1.Devices` over any `UnaryCaller`.
///
/// Called by devices. Every request names its application by code; no token is needed.
public struct DevicesClient<Caller: UnaryCaller>: Sendable {
    /// What the calls go through: a connection or a pool.
    public let caller: Caller

    /// Creates a client that calls through `caller`.
    public init(caller: Caller) {
        self.caller = caller
    }

    /// Creates or updates a device (by application and hwid); returns the application's categories.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func registerDevice(_ request: RegisterDeviceRequest, options: CallOptions = CallOptions()) async throws -> RegisterDeviceResponse {
        try await caller.call(Methods.Devices.registerDevice, request, options: options)
    }

    /// Forgets the device's push token: it is no longer targeted until it registers again.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func unregisterDevice(_ request: UnregisterDeviceRequest, options: CallOptions = CallOptions()) async throws -> UnregisterDeviceResponse {
        try await caller.call(Methods.Devices.unregisterDevice, request, options: options)
    }

    /// Sets, increments or removes tags of a device.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func setTags(_ request: SetTagsRequest, options: CallOptions = CallOptions()) async throws -> SetTagsResponse {
        try await caller.call(Methods.Devices.setTags, request, options: options)
    }

    /// Reads a device's tags.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func getTags(_ request: GetTagsRequest, options: CallOptions = CallOptions()) async throws -> GetTagsResponse {
        try await caller.call(Methods.Devices.getTags, request, options: options)
    }

    /// Returns the categories only when they changed since `known_version`.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func syncCategories(_ request: SyncCategoriesRequest, options: CallOptions = CallOptions()) async throws -> SyncCategoriesResponse {
        try await caller.call(Methods.Devices.syncCategories, request, options: options)
    }

    /// Reports that the user opened a notification or tapped one of its buttons.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func trackAction(_ request: TrackActionRequest, options: CallOptions = CallOptions()) async throws -> TrackActionResponse {
        try await caller.call(Methods.Devices.trackAction, request, options: options)
    }

    /// Stores the badge the app shows now, from which a message's "+n" badge counts.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func setBadge(_ request: SetBadgeRequest, options: CallOptions = CallOptions()) async throws -> SetBadgeResponse {
        try await caller.call(Methods.Devices.setBadge, request, options: options)
    }
}

extension UnaryCaller {
    /// The `pushwire.v1.Devices` methods, called through this caller.
    public var devices: DevicesClient<Self> { DevicesClient(caller: self) }
}
