import PushwireJSONBridge
import PushwireWire

/// The device methods: registerDevice, unregisterDevice, setTags, getTags, setBadge, pushStat.
enum PushwooshDevices {
    /// Fields the Pushwoosh SDKs send that describe the device and change nothing Pushwire
    /// delivers: accepted and not stored.
    static let descriptiveFields: Set<String> = [
        "v", "device_model", "os_version", "jailbroken", "package", "android_package", "idfa", "locale", "gdpr",
    ]

    static func registerDevice(_ call: PushwooshCall) throws(PushwooshFailure) {
        let a = call.arguments
        try call.refuseUnknown(descriptiveFields.union([
            "application", "hwid", "push_token", "device_type", "language", "timezone", "userId", "user_id", "app_version", "tags",
        ]))
        var request: [(key: String, value: JSONValue)] = [
            ("application", .string(try Read.string(a, "application", required: true) ?? "")),
            ("hwid", .string(try Read.string(a, "hwid", required: true) ?? "")),
        ]
        if let token = try Read.string(a, "push_token") { request.append(("pushToken", .string(token))) }
        guard let deviceType = try Read.integer(a, "device_type") else { throw .argument("device_type is required") }
        request.append(("deviceType", .number("\(deviceType)")))
        let language = try Read.string(a, "language")
        if let language { request.append(("language", .string(language))) }
        if let timezone = try Read.integer(a, "timezone") { request.append(("timezone", .number("\(timezone)"))) }
        let user = try Read.string(a, "userId")
        let userAlias = try Read.string(a, "user_id")
        if let user = user ?? userAlias { request.append(("userId", .string(user))) }
        if let version = try Read.string(a, "app_version") { request.append(("appVersion", .string(version))) }
        if let tags = a["tags"] {
            request.append(("tags", .array(try tagList(tags).map { .object([("name", $0.name), ("value", $0.value)]) })))
        }
        call.invoke(Methods.Devices.registerDevice, .object(request)) { response in
            call.reply(.success(.object([("iosCategories", iosCategories(response["iosCategories"], language: language))])))
        }
    }

    /// Pushwoosh's `iosCategories`: `categoryId` a number; each button's `id`, `label` (in the
    /// device's language when the button has one), `type` "1" for a destructive button, "0"
    /// otherwise, and `startApplication` 1 or 0 — the shape of Pushwoosh's iOS interactive push page.
    static func iosCategories(_ categories: JSONValue?, language: String?) -> JSONValue {
        guard case .array(let items)? = categories else { return .array([]) }
        return .array(items.map { category in
            var buttons: [JSONValue] = []
            if case .array(let list)? = category["buttons"] {
                for button in list {
                    var label = button["label"] ?? .string("")
                    if let language, case .array(let localized)? = button["localizedLabels"],
                       let match = localized.first(where: { $0["language"] == .string(language) }), let text = match["text"] {
                        label = text
                    }
                    buttons.append(.object([
                        ("id", button["id"] ?? .number("0")),
                        ("label", label),
                        ("type", .string(button["destructive"] == .bool(true) ? "1" : "0")),
                        ("startApplication", .number(button["startApplication"] == .bool(true) ? "1" : "0")),
                    ]))
                }
            }
            return .object([("categoryId", category["categoryId"] ?? .number("0")), ("buttons", .array(buttons))])
        })
    }

    static func unregisterDevice(_ call: PushwooshCall) throws(PushwooshFailure) {
        try call.refuseUnknown(["application", "hwid"])
        let request = JSONValue.object([
            ("application", .string(try Read.string(call.arguments, "application", required: true) ?? "")),
            ("hwid", .string(try Read.string(call.arguments, "hwid", required: true) ?? "")),
        ])
        call.invoke(Methods.Devices.unregisterDevice, request) { _ in call.reply(.success(.null)) }
    }

    static func setTags(_ call: PushwooshCall) throws(PushwooshFailure) {
        try call.refuseUnknown(["application", "hwid", "tags"])
        guard let tags = call.arguments["tags"] else { throw .argument("tags is required") }
        var updates: [JSONValue] = []
        guard case .object(let members) = tags else { throw .argument("tags must be an object of tag names and values") }
        for (name, value) in members {
            switch value {
            case .null:
                updates.append(.object([("name", .string(name)), ("remove", .bool(true))]))
            case .object:
                // {"operation": "increment", "value": n}, as Pushwoosh's SDKs send it.
                guard value["operation"] == .string("increment"), let amount = try Read.integer(value, "value") else {
                    throw .argument("tags.\(name): an object value must be {\"operation\": \"increment\", \"value\": n}")
                }
                updates.append(.object([("name", .string(name)), ("increment", .string("\(amount)"))]))
            default:
                updates.append(.object([("name", .string(name)), ("set", try tagValue(value, name: name))]))
            }
        }
        let request = JSONValue.object([
            ("application", .string(try Read.string(call.arguments, "application", required: true) ?? "")),
            ("hwid", .string(try Read.string(call.arguments, "hwid", required: true) ?? "")),
            ("updates", .array(updates)),
        ])
        call.invoke(Methods.Devices.setTags, request) { _ in call.reply(.success(.object([("skipped", .array([]))]))) }
    }

    static func getTags(_ call: PushwooshCall) throws(PushwooshFailure) {
        // `auth` is what Pushwoosh asks for here; device tags are the device's own in Pushwire.
        try call.refuseUnknown(["application", "hwid", "auth"])
        let request = JSONValue.object([
            ("application", .string(try Read.string(call.arguments, "application", required: true) ?? "")),
            ("hwid", .string(try Read.string(call.arguments, "hwid", required: true) ?? "")),
        ])
        call.invoke(Methods.Devices.getTags, request) { response in
            var result: [(key: String, value: JSONValue)] = []
            if case .array(let tags)? = response["tags"] {
                for tag in tags {
                    guard case .string(let name)? = tag["name"] else { continue }
                    result.append((name, plainValue(tag["value"])))
                }
            }
            call.reply(.success(.object([("result", .object(result))])))
        }
    }

    /// `badge` (pypushwoosh sends `badges`): the number the app's icon shows now, stored so that
    /// a message's `ios_badges` "+n" counts from it, as Pushwoosh's auto-incrementing badges do.
    static func setBadge(_ call: PushwooshCall) throws(PushwooshFailure) {
        try call.refuseUnknown(["application", "hwid", "badge", "badges"])
        let a = call.arguments
        let value = try Read.integer(a, "badge")
        let alias = try Read.integer(a, "badges")
        guard let badge = value ?? alias else { throw .argument("badge is required") }
        guard badge >= 0, badge <= Int64(UInt32.max) else { throw .argument("badge must be a whole number from 0 to \(UInt32.max), not \(badge)") }
        let request = JSONValue.object([
            ("application", .string(try Read.string(a, "application", required: true) ?? "")),
            ("hwid", .string(try Read.string(a, "hwid", required: true) ?? "")),
            ("badge", .number("\(badge)")),
        ])
        call.invoke(Methods.Devices.setBadge, request) { _ in call.reply(.success(.null)) }
    }

    static func pushStat(_ call: PushwooshCall) throws(PushwooshFailure) {
        let a = call.arguments
        try call.refuseUnknown(["application", "hwid", "hash", "button_id", "category_id", "metaData"])
        var request: [(key: String, value: JSONValue)] = [
            ("application", .string(try Read.string(a, "application", required: true) ?? "")),
            ("hwid", .string(try Read.string(a, "hwid", required: true) ?? "")),
            ("messageCode", .string(try Read.string(a, "hash", required: true) ?? "")),
        ]
        // Pushwire's addition: a button tap, with the category and button the device reports.
        if let button = try Read.integer(a, "button_id") {
            guard let category = try Read.integer(a, "category_id") else { throw .argument("button_id needs category_id") }
            request += [("kind", .string("ACTION_KIND_BUTTON")), ("categoryId", .number("\(category)")), ("buttonId", .number("\(button)"))]
        } else {
            request.append(("kind", .string("ACTION_KIND_OPEN")))
        }
        call.invoke(Methods.Devices.trackAction, .object(request)) { _ in call.reply(.success(.null)) }
    }

    // MARK: Tags

    static func tagList(_ tags: JSONValue) throws(PushwooshFailure) -> [(name: JSONValue, value: JSONValue)] {
        guard case .object(let members) = tags else { throw .argument("tags must be an object of tag names and values") }
        var out: [(name: JSONValue, value: JSONValue)] = []
        for (name, value) in members where value != .null {
            out.append((.string(name), try tagValue(value, name: name)))
        }
        return out
    }

    /// A Pushwoosh tag value as Pushwire's `TagValue` in proto3 JSON.
    static func tagValue(_ value: JSONValue, name: String) throws(PushwooshFailure) -> JSONValue {
        switch value {
        case .string(let text):
            return .object([("stringValue", .string(text))])
        case .number(let text):
            guard let integer = Int64(text) else { throw .argument("tags.\(name): \(text) is not a whole number (Pushwire's tags are integers, strings, booleans or lists)") }
            return .object([("intValue", .string("\(integer)"))])
        case .bool(let flag):
            return .object([("boolValue", .bool(flag))])
        case .array(let items):
            var values: [JSONValue] = []
            for item in items {
                switch item {
                case .string: values.append(item)
                case .number(let text): values.append(.string(text))
                default: throw .argument("tags.\(name): a list holds strings")
                }
            }
            return .object([("listValue", .object([("values", .array(values))]))])
        default:
            throw .argument("tags.\(name): unsupported value")
        }
    }

    /// A `TagValue` in proto3 JSON as the plain JSON value Pushwoosh's getTags answers.
    static func plainValue(_ value: JSONValue?) -> JSONValue {
        guard let value else { return .null }
        if let text = value["stringValue"] { return text }
        if case .string(let text)? = value["intValue"] { return .number(text) }
        if let number = value["intValue"] { return number }
        if let flag = value["boolValue"] { return flag }
        if let list = value["listValue"] { return list["values"] ?? .array([]) }
        if case .string(let text)? = value["dateValue"] { return .number(text) }
        return .null
    }
}
