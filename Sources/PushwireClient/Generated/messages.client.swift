// generated — do not edit. Source: Protos/pushwire/v1/messages.proto. Regenerate with Scripts/generate.

import PushwireWire

/// A typed client of `pushwire.v1.Messages` over any `UnaryCaller`.
///
/// Sends notifications. Every method needs the application's access token.
public struct MessagesClient<Caller: UnaryCaller>: Sendable {
    /// What the calls go through: a connection or a pool.
    public let caller: Caller

    /// Creates a client that calls through `caller`.
    public init(caller: Caller) {
        self.caller = caller
    }

    /// Creates one message per notification; returns their codes and the hwids it did not know.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func createMessage(_ request: CreateMessageRequest, options: CallOptions = CallOptions()) async throws -> CreateMessageResponse {
        try await caller.call(Methods.Messages.createMessage, request, options: options)
    }

    /// Cancels a scheduled message that has not started going out.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func deleteMessage(_ request: DeleteMessageRequest, options: CallOptions = CallOptions()) async throws -> DeleteMessageResponse {
        try await caller.call(Methods.Messages.deleteMessage, request, options: options)
    }

    /// Status and counts of a message.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func getMessageDetails(_ request: GetMessageDetailsRequest, options: CallOptions = CallOptions()) async throws -> GetMessageDetailsResponse {
        try await caller.call(Methods.Messages.getMessageDetails, request, options: options)
    }

    /// The application's messages, newest first, a page at a time.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func listMessages(_ request: ListMessagesRequest, options: CallOptions = CallOptions()) async throws -> ListMessagesResponse {
        try await caller.call(Methods.Messages.listMessages, request, options: options)
    }

    /// How many devices a targeting selects now, counted through the same selection the fan-out
    /// uses; sends nothing.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func countTargets(_ request: CountTargetsRequest, options: CallOptions = CallOptions()) async throws -> CountTargetsResponse {
        try await caller.call(Methods.Messages.countTargets, request, options: options)
    }

    /// A notification checked as CreateMessage checks it and rendered as the APNs payload each of
    /// its languages would be sent as; stores and sends nothing.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func previewNotification(_ request: PreviewNotificationRequest, options: CallOptions = CallOptions()) async throws -> PreviewNotificationResponse {
        try await caller.call(Methods.Messages.previewNotification, request, options: options)
    }

    /// One of the application's devices as the fan-out sees it: platform, language, tags, token state.
    /// - Throws: `RPCError` with the server's status, or a local failure.
    public func getDevice(_ request: GetDeviceRequest, options: CallOptions = CallOptions()) async throws -> GetDeviceResponse {
        try await caller.call(Methods.Messages.getDevice, request, options: options)
    }
}

extension UnaryCaller {
    /// The `pushwire.v1.Messages` methods, called through this caller.
    public var messages: MessagesClient<Self> { MessagesClient(caller: self) }
}
