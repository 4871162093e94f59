import Foundation
import PushwireClient
import PushwireWire

/// `pushwire message send|details|cancel` (`delete` is another name for `cancel`), with the application's access token.
enum MessageCommands {
    private static let notificationOptions: Set<String> = [
        "--content", "--title", "--subtitle", "--category", "--device", "--user", "--platform", "--language-content",
        "--language-title", "--data", "--send-at", "--transaction-id", "--badge", "--sound", "--thread-id", "--trim",
    ]

    /// Turns the options of `message <subcommand>` into its request.
    /// - Throws: `UsageError` (exit 64) for a missing, repeated, unknown or malformed option.
    static func parse(_ subcommand: String, _ scanned: ScannedArguments, command: String) throws(UsageError) -> GroupCommand {
        switch subcommand {
        case "send":
            try scanned.allow(notificationOptions.union(["--file"]), command: command)
            _ = try scanned.positionals([], command: command)
            if let file = try scanned.value("--file", command: command) {
                if let other = scanned.flags.first(where: { notificationOptions.contains($0.name) })?.name ?? scanned.switches.first {
                    throw UsageError(message: "--file cannot be combined with \(other)", command: command)
                }
                return .createMessage(try request(fromFile: file, command: command))
            }
            var request = CreateMessageRequest()
            request.notifications = [try notification(scanned, command: command)]
            if let category = try scanned.value("--category", command: command), UInt32(category) == nil {
                return .createMessageNamingCategory(request, category: category)
            }
            return .createMessage(request)
        case "details":
            try scanned.allow([], command: command)
            var request = GetMessageDetailsRequest()
            request.messageCode = try scanned.positionals(["<message code>"], command: command)[0]
            return .getMessageDetails(request)
        default: // "cancel" or "delete"
            try scanned.allow([], command: command)
            var request = DeleteMessageRequest()
            request.messageCode = try scanned.positionals(["<message code>"], command: command)[0]
            return .deleteMessage(request)
        }
    }

    /// A JSON file holding one `Notification`, or a whole `CreateMessageRequest` (an object with
    /// `notifications`).
    private static func request(fromFile file: String, command: String) throws(UsageError) -> CreateMessageRequest {
        let text = try ValueSyntax.readFile(file, option: "--file", command: command)
        let json: JSONValue
        do { json = try ProtoJSON.parse(text) } catch { throw UsageError(message: "--file: \(error.message)", command: command) }
        if case .object(let members) = json, members.contains(where: { $0.key == "notifications" }) {
            return try ValueSyntax.message(text, as: CreateMessageRequest.self, option: "--file", command: command)
        }
        var request = CreateMessageRequest()
        request.notifications = [try ValueSyntax.message(text, as: PushwireWire.Notification.self, option: "--file", command: command)]
        return request
    }

    private static func notification(_ scanned: ScannedArguments, command: String) throws(UsageError) -> PushwireWire.Notification {
        var notification = PushwireWire.Notification()
        notification.content = try scanned.required("--content", command: command)
        notification.localizedContent = try ValueSyntax.localized(scanned.values("--language-content"), option: "--language-content", command: command)
        notification.title = try scanned.value("--title", command: command) ?? ""
        notification.localizedTitle = try ValueSyntax.localized(scanned.values("--language-title"), option: "--language-title", command: command)
        notification.subtitle = try scanned.value("--subtitle", command: command) ?? ""
        if let category = try scanned.value("--category", command: command) {
            // A name (e.g. YesNo) is resolved when sending; a number is the id.
            if let id = UInt32(category) {
                guard id > 0 else { throw UsageError(message: "--category expects a category id or name, got '0'", command: command) }
                notification.iosCategoryID = id
            } else if category.isEmpty {
                throw UsageError(message: "--category expects a category id or name, got ''", command: command)
            }
        }
        if let badge = try scanned.value("--badge", command: command) {
            notification.iosBadge = try self.badge(badge, command: command)
        }
        notification.iosSound = try scanned.value("--sound", command: command) ?? ""
        notification.iosThreadID = try scanned.value("--thread-id", command: command) ?? ""
        notification.trimToFit = scanned.switches.contains("--trim")
        if let data = try scanned.value("--data", command: command) {
            // Caught here so that a typo is a usage error, not a round trip.
            guard case .object? = try? ProtoJSON.parse(data) else {
                throw UsageError(message: "--data expects a JSON object, e.g. '{\"order\": 42}'", command: command)
            }
            notification.data = data
        }
        if let sendAt = try scanned.value("--send-at", command: command) {
            if let seconds = Int64(sendAt) {
                notification.sendAtMS = seconds * 1000
            } else if let date = ValueSyntax.isoDate(sendAt) {
                notification.sendAtMS = Int64((date.timeIntervalSince1970 * 1000).rounded())
            } else {
                throw UsageError(message: "--send-at expects an ISO 8601 time such as 2026-11-29T18:30:00Z, or unix seconds; got '\(sendAt)'", command: command)
            }
        }
        notification.transactionID = try scanned.value("--transaction-id", command: command) ?? ""
        var targeting = Targeting()
        targeting.devices = scanned.values("--device")
        targeting.userIDs = scanned.values("--user")
        for platform in scanned.values("--platform") {
            targeting.platforms.append(try ValueSyntax.deviceType(platform, option: "--platform", command: command))
        }
        if targeting != Targeting() { notification.targeting = targeting }
        return notification
    }

    /// `3` sets the badge; `+1` or `-1` changes it.
    private static func badge(_ text: String, command: String) throws(UsageError) -> Badge {
        var badge = Badge()
        if text.hasPrefix("+") || text.hasPrefix("-") {
            guard let amount = Int32(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
                throw UsageError(message: "--badge expects N, +N or -N, got '\(text)'", command: command)
            }
            badge.change = .increment(amount)
        } else {
            guard let value = UInt32(text) else { throw UsageError(message: "--badge expects N, +N or -N, got '\(text)'", command: command) }
            badge.change = .set(value)
        }
        return badge
    }

    /// Calls the server and prints the result (one JSON line with `--json`).
    /// - Throws: `CommandFailure` (exit 1) with the call's status.
    static func run(_ operation: GroupCommand, session: Session) async throws(CommandFailure) {
        let json = session.options.json
        let token = session.options.token
        switch operation {
        case .createMessageNamingCategory(var request, let name):
            let categories = try await session.call(Methods.Categories.listCategories, ListCategoriesRequest(), token: token)
            guard let category = categories.categories.first(where: { $0.name == name }) else {
                let known = categories.categories.map { "\($0.name) (\($0.categoryID))" }.joined(separator: ", ")
                throw CommandFailure(error: RPCError(.notFound, "no category named '\(name)'; the application has: \(known)"))
            }
            for index in request.notifications.indices { request.notifications[index].iosCategoryID = category.categoryID }
            try await run(.createMessage(request), session: session)
        case .createMessage(let request):
            let response = try await session.call(Methods.Messages.createMessage, request, token: token)
            if json { return Session.printJSON(response) }
            for code in response.messageCodes { print("message \(code)") }
            if !response.unknownDevices.isEmpty {
                print("unknown devices (not targeted): \(response.unknownDevices.joined(separator: ", "))")
            }
            if !response.tokenlessDevices.isEmpty {
                print("devices without a push token (not targeted): \(response.tokenlessDevices.joined(separator: ", "))")
            }
        case .getMessageDetails(let request):
            let response = try await session.call(Methods.Messages.getMessageDetails, request, token: token)
            if json { return Session.printJSON(response) }
            print(describe(response))
        case .deleteMessage(let request):
            let response = try await session.call(Methods.Messages.deleteMessage, request, token: token)
            if json { return Session.printJSON(response) }
            print("cancelled message \(request.messageCode)")
        default:
            break
        }
    }

    /// The details as a short report; also what `pushwire demo` ends with.
    /// A device type as `message details` names it.
    static func platformName(_ type: DeviceType) -> String {
        switch type {
        case .ios: "iOS"
        case .android: "Android"
        case .macos: "macOS"
        case .safari: "Safari"
        default: "device type \(type.rawValue)"
        }
    }

    static func describe(_ details: GetMessageDetailsResponse) -> String {
        let status: String
        switch details.status {
        case .scheduled: status = "scheduled"
        case .sending: status = "sending"
        case .done: status = "done"
        case .cancelled: status = "cancelled"
        default: status = "unknown"
        }
        var lines = ["message \(details.messageCode): \(status)"]
        if details.sendAtMS > 0 {
            let date = Date(timeIntervalSince1970: TimeInterval(details.sendAtMS) / 1000)
            lines.append("  send at:   \(ISO8601DateFormatter().string(from: date))")
        }
        if details.iosCategoryID != 0 { lines.append("  category:  \(details.iosCategoryID)") }
        lines.append("  targeted:  \(details.targeted)")
        lines.append("  sent:      \(details.sent)")
        lines.append("  failed:    \(details.failed) (invalid tokens: \(details.invalidTokens))")
        for failure in details.failures { lines.append("    \(failure.reason): \(failure.count)") }
        if !details.platforms.isEmpty {
            lines.append("  platforms:")
            for counts in details.platforms {
                lines.append("    \(platformName(counts.deviceType)): targeted \(counts.targeted), sent \(counts.sent), "
                             + "failed \(counts.failed) (invalid tokens: \(counts.invalidTokens))")
            }
        }
        lines.append("  opened:    \(details.opened)")
        if !details.taps.isEmpty {
            lines.append("  taps:")
            for tap in details.taps { lines.append("    \(tap.label) (button \(tap.buttonID)): \(tap.count)") }
        }
        return lines.joined(separator: "\n")
    }
}
