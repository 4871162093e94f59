import Foundation
import PushwireClient
import PushwireWire

/// `pushwire demo`: the tour a newcomer runs first. Against a running server it creates an
/// application, shows its YesNo category, registers three devices, sends them an interactive
/// message (to the file sink, since the application has no APNs credentials), reports a Yes tap,
/// a No tap and an open, and prints the message's details.
enum DemoCommand {
    /// The demo's devices: hwid, language, and what the simulated user does.
    private enum Reaction { case tap(String), open }
    private static let devices: [(hwid: String, language: String, reaction: Reaction)] = [
        ("demo-device-en", "en", .tap("Yes")), ("demo-device-fr", "fr", .tap("No")), ("demo-device-de", "de", .open),
    ]

    /// Runs the tour through `session`; prints each step, or one JSON object with `--json`.
    /// - Throws: `CommandFailure` when a call fails or the message is not done within 30 s.
    static func run(session: Session, adminToken: String) async throws(CommandFailure) {
        let json = session.options.json
        func say(_ line: String) { if !json { print(line) } }

        var create = CreateApplicationRequest()
        create.name = "Pushwire demo \(Int(Date().timeIntervalSince1970))"
        let created = try await session.call(Methods.Admin.createApplication, create, token: adminToken)
        let code = created.application?.code ?? ""
        let token = created.accessToken
        say("1. Created application \(code) (\"\(create.name)\") with the admin token.")
        say("   Its access token (shown once): \(token)")

        let categories = try await session.call(Methods.Categories.listCategories, ListCategoriesRequest(), token: token)
        guard let yesNo = categories.categories.first(where: { $0.name == "YesNo" }) else {
            throw CommandFailure(error: RPCError(.failedPrecondition, "the new application has no YesNo category"))
        }
        say("2. Every application starts with the YesNo category (categories v\(categories.categoriesVersion)):")
        say(Render.categories([yesNo]))

        for (index, device) in devices.enumerated() {
            var register = RegisterDeviceRequest()
            register.application = code
            register.hwid = device.hwid
            // A well-formed APNs token (64 hex digits); nothing real is behind it.
            register.pushToken = String(repeating: String(format: "%02x", index + 0xa0), count: 32)
            register.deviceType = .ios
            register.language = device.language
            let registered = try await session.call(Methods.Devices.registerDevice, register, token: nil)
            if index == 0 {
                let count = registered.iosCategories.count
                say("3. Registered devices (each receives the app's \(count) \(count == 1 ? "category" : "categories"), v\(registered.categoriesVersion)):")
            }
            say("   \(device.hwid)  language \(device.language)")
        }

        var notification = PushwireWire.Notification()
        notification.content = "Do you like Pushwire?"
        notification.localizedContent = [("fr", "Vous aimez Pushwire ?"), ("de", "Gefällt Ihnen Pushwire?")].map { language, text in
            var localized = LocalizedText()
            localized.language = language
            localized.text = text
            return localized
        }
        notification.title = "Pushwire demo"
        notification.iosCategoryID = yesNo.categoryID
        var targeting = Targeting()
        targeting.devices = devices.map(\.hwid)
        notification.targeting = targeting
        var send = CreateMessageRequest()
        send.notifications = [notification]
        let sent = try await session.call(Methods.Messages.createMessage, send, token: token)
        guard let messageCode = sent.messageCodes.first else {
            throw CommandFailure(error: RPCError(.internalError, "CreateMessage returned no message code"))
        }
        say("4. Sent message \(messageCode) with the YesNo category (aps.category \"\(yesNo.categoryID)\") in en, fr and de.")
        say("   The application has no APNs credentials, so the notifications go to the file sink:")
        say("   see the server's sink file (by default <data-dir>/sink.jsonl, or pushwired's --sink).")

        var lookup = GetMessageDetailsRequest()
        lookup.messageCode = messageCode
        let deadline = ContinuousClock.now + .seconds(30)
        while try await session.call(Methods.Messages.getMessageDetails, lookup, token: token).status != .done {
            guard ContinuousClock.now < deadline else {
                throw CommandFailure(error: RPCError(.deadlineExceeded, "message \(messageCode) was not done after 30 s"))
            }
            try? await Task.sleep(for: .milliseconds(100))
        }
        say("5. The message is done. Simulating what the users do (Devices/TrackAction):")

        for device in devices {
            var action = TrackActionRequest()
            action.application = code
            action.hwid = device.hwid
            action.messageCode = messageCode
            switch device.reaction {
            case .open:
                action.kind = .open
                say("   \(device.hwid) opens the notification")
            case .tap(let label):
                action.kind = .button
                action.categoryID = yesNo.categoryID
                guard let button = yesNo.buttons.first(where: { $0.label == label }) else {
                    throw CommandFailure(error: RPCError(.failedPrecondition, "the YesNo category has no \(label) button"))
                }
                action.buttonID = button.id
                say("   \(device.hwid) taps \(label)")
            }
            _ = try await session.call(Methods.Devices.trackAction, action, token: nil)
        }

        let details = try await session.call(Methods.Messages.getMessageDetails, lookup, token: token)
        if json {
            let rendered = Session.json(details)
            print(ProtoJSON.serialize(.object([("application", .string(code)), ("accessToken", .string(token)),
                                               ("messageCode", .string(messageCode)), ("details", rendered)]), pretty: false))
            return
        }
        print("6. Messages/GetMessageDetails:")
        print(MessageCommands.describe(details))
        print("")
        print("Next: pushwire message details \(messageCode) --token \(token)")
    }
}
