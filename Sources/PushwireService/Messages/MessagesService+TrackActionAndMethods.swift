import PushwireStore
import PushwireWire

extension MessagesService {
    /// Records an open or a button tap, checked against the message (it exists and belongs to the
    /// device's application) and its category (the button exists). A retried report of the same
    /// action (application, hwid, message, kind, button) is recorded once: `recorded` is false.
    public func trackAction(_ request: TrackActionRequest) async throws(RPCError) -> TrackActionResponse {
        try DeviceValidation.checkApplicationAndHWID(application: request.application, hwid: request.hwid)
        let application = try registry.application(code: request.application)
        if request.messageCode.isEmpty { throw RPCError(.invalidArgument, "message_code is empty: pass the payload's \(PayloadRenderer.messageCodeKey)") }
        if request.textInput.utf8.count > MessageLimits.maxTextInputBytes {
            throw RPCError(.invalidArgument, "text_input is longer than \(MessageLimits.maxTextInputBytes) bytes")
        }
        guard let message = try await storeCall({ () async throws(StoreError) in
            try await store.message(applicationID: application.id, code: request.messageCode)
        }) else {
            throw RPCError(.notFound, "message \(RPCError.echo(request.messageCode)) not found")
        }
        let known = try await storeCall { () async throws(StoreError) in
            try await store.knownDevices(applicationID: application.id, hwids: [request.hwid])
        }
        if known.isEmpty { throw RPCError(.notFound, "device \(RPCError.echo(request.hwid)) not found") }
        var buttonID: UInt32 = 0
        switch request.kind {
        case .open:
            break
        case .button:
            if message.categoryID == 0 {
                throw RPCError(.invalidArgument, "message \(message.code) has no category, so it has no buttons to tap")
            }
            if request.categoryID != message.categoryID {
                throw RPCError(.invalidArgument, "category_id \(request.categoryID) is not the category of message \(message.code) (\(message.categoryID))")
            }
            let category = try await registry.categories(code: application.code, holding: message.categoryID).categories
                .first { $0.categoryID == message.categoryID }
            guard let category, category.buttons.contains(where: { $0.id == request.buttonID }) else {
                throw RPCError(.invalidArgument, "button_id \(request.buttonID) is not a button of category \(message.categoryID)")
            }
            buttonID = request.buttonID
        case .unspecified, .unrecognized:
            throw RPCError(.invalidArgument, "kind must be OPEN or BUTTON")
        }
        let action = ActionRecord(kind: Int64(request.kind.rawValue), messageID: message.id, hwid: request.hwid, buttonID: buttonID,
                                  textInput: request.textInput)
        var response = TrackActionResponse()
        response.recorded = try await storeCall { () async throws(StoreError) in try await store.recordAction(action) }
        return response
    }

    /// Registers Messages/* and Devices/TrackAction on `server`. CreateMessage is checked on the
    /// event loop and answered from the group commit's completion; the other writes run in tasks
    /// that wait for it; GetMessageDetails and the console's reads (ListMessages, CountTargets,
    /// PreviewNotification, GetDevice) run in tasks that await the store.
    public func register(on server: some MethodRegistrar) {
        let service = self
        server.addCallback(Methods.Messages.createMessage) { context, request, complete in
            service.createMessage(request, caller: Caller(metadata: context), complete: complete)
        }
        server.addAsync(Methods.Messages.deleteMessage) { context, request async throws(RPCError) in
            try await service.deleteMessage(request, caller: Caller(metadata: context))
        }
        server.addAsync(Methods.Messages.getMessageDetails) { context, request async throws(RPCError) in
            try await service.getMessageDetails(request, caller: Caller(metadata: context))
        }
        server.addAsync(Methods.Messages.listMessages) { context, request async throws(RPCError) in
            try await service.listMessages(request, caller: Caller(metadata: context))
        }
        server.addAsync(Methods.Messages.countTargets) { context, request async throws(RPCError) in
            try await service.countTargets(request, caller: Caller(metadata: context))
        }
        server.addAsync(Methods.Messages.previewNotification) { context, request async throws(RPCError) in
            try await service.previewNotification(request, caller: Caller(metadata: context))
        }
        server.addAsync(Methods.Messages.getDevice) { context, request async throws(RPCError) in
            try await service.getDevice(request, caller: Caller(metadata: context))
        }
        server.addAsync(Methods.Devices.trackAction) { _, request async throws(RPCError) in
            try await service.trackAction(request)
        }
    }
}
