import PushwireJSONBridge
import PushwireWire

/// The message methods: createMessage, deleteMessage, and statistics (getMsgStats,
/// getMessageDetails), each authorized by `auth`, the application's access token.
enum PushwooshMessages {
    /// The notification fields Pushwire maps (docs/PUSHWOOSH.md); anything else is refused.
    static let notificationFields: Set<String> = [
        "send_date", "ignore_user_timezone", "content", "ios_title", "ios_subtitle", "ios_category_id", "ios_category",
        "ios_badges", "ios_sound", "ios_ttl", "ios_root_params", "ios_trim_content", "apns_trim_content", "ios_thread_id",
        "data", "devices", "users", "platforms", "conditions", "transactionId", "minimize_link",
    ]

    static func createMessage(_ call: PushwooshCall) throws(PushwooshFailure) {
        try call.refuseUnknown(["auth", "application", "notifications"])
        let token = try Read.string(call.arguments, "auth", required: true)
        let application = try Read.string(call.arguments, "application", required: true) ?? ""
        guard case .array(let items)? = call.arguments["notifications"], !items.isEmpty else {
            throw .argument("notifications is required: a list of at least one notification")
        }
        var notifications: [JSONValue] = []
        for (index, item) in items.enumerated() {
            notifications.append(try notification(item, what: "notifications[\(index)]."))
        }
        // The application is checked against the token's by Pushwire's own rule (the
        // `application` metadata entry): a backend that mixes up two apps' codes and tokens
        // hears so, rather than sending to the token's app while naming another.
        call.invoke(Methods.Messages.createMessage, .object([("notifications", .array(notifications))]), token: token,
                    application: application) { response in
            var members: [(key: String, value: JSONValue)] = [("Messages", response["messageCodes"] ?? .array([]))]
            if case .array(let unknown)? = response["unknownDevices"], !unknown.isEmpty {
                members.append(("UnknownDevices", .array(unknown)))
            }
            call.reply(.success(.object(members)))
        }
    }

    /// One Pushwoosh notification as Pushwire's `Notification` in proto3 JSON.
    static func notification(_ n: JSONValue, what: String) throws(PushwooshFailure) -> JSONValue {
        guard case .object = n else { throw .argument("\(what.dropLast()) must be an object") }
        for key in n.keys where !notificationFields.contains(key) {
            if key == "link" || key == "page_id" || key == "rich_media" {
                throw .argument("\(what)\(key) is not supported by Pushwire: it would change what the device shows")
            }
            throw .argument("\(what)\(key) is not supported by Pushwire (see docs/PUSHWOOSH.md)")
        }
        var out: [(key: String, value: JSONValue)] = []
        // send_date: "now", or a moment that is the same for every device.
        let sendDate = try Read.string(n, "send_date") ?? "now"
        if sendDate != "now" {
            guard try Read.flag(n, "ignore_user_timezone") == true else {
                throw .argument("\(what)send_date: Pushwire sends at one moment for every device; set ignore_user_timezone to true (send_date is then UTC)")
            }
            guard let milliseconds = utcMilliseconds(sendDate) else {
                throw .argument("\(what)send_date must be \"now\" or \"YYYY-MM-DD HH:mm\", not \"\(sendDate)\"")
            }
            out.append(("sendAtMs", .string("\(milliseconds)")))
        }
        try localizable(n, "content", into: &out, plain: "content", localized: "localizedContent", what: what, required: true)
        try localizable(n, "ios_title", into: &out, plain: "title", localized: "localizedTitle", what: what)
        try localizable(n, "ios_subtitle", into: &out, plain: "subtitle", localized: "localizedSubtitle", what: what)
        let categoryID = try Read.integer(n, "ios_category_id")
        let categoryAlias = try Read.integer(n, "ios_category")
        if let category = categoryID ?? categoryAlias {
            out.append(("iosCategoryId", .number("\(category)")))
        }
        if let badge = n["ios_badges"] { out.append(("iosBadge", try badgeChange(badge, what: what))) }
        if let sound = try Read.string(n, "ios_sound") { out.append(("iosSound", .string(sound))) }
        if let ttl = try Read.integer(n, "ios_ttl") { out.append(("iosTtl", .number("\(ttl)"))) }
        if let thread = try Read.string(n, "ios_thread_id") { out.append(("iosThreadId", .string(thread))) }
        let trim = try Read.flag(n, "ios_trim_content")
        let trimAlias = try Read.flag(n, "apns_trim_content")  // pypushwoosh's spelling
        if (trim ?? trimAlias) == true { out.append(("trimToFit", .bool(true))) }
        if let data = try rootKeys(n, what: what) { out.append(("data", .string(data))) }
        var targeting: [(key: String, value: JSONValue)] = []
        if let devices = try Read.strings(n, "devices") { targeting.append(("devices", .array(devices.map { .string($0) }))) }
        if let users = try Read.strings(n, "users") { targeting.append(("userIds", .array(users.map { .string($0) }))) }
        if let platforms = try Read.strings(n, "platforms") {
            var numbers: [JSONValue] = []
            for platform in platforms {
                guard let code = Int32(platform) else { throw .argument("\(what)platforms must be a list of Pushwoosh device type numbers") }
                numbers.append(.number("\(code)"))
            }
            targeting.append(("platforms", .array(numbers)))
        }
        if let conditions = n["conditions"] { targeting.append(("conditions", try tagConditions(conditions, what: what))) }
        if !targeting.isEmpty { out.append(("targeting", .object(targeting))) }
        if let transaction = try Read.string(n, "transactionId") { out.append(("transactionId", .string(transaction))) }
        return .object(out)
    }

    /// `content` (and the titles): a string, or an object of language → text (whose `en`, or
    /// first, entry is also the default text).
    static func localizable(
        _ n: JSONValue, _ key: String, into out: inout [(key: String, value: JSONValue)], plain: String, localized: String,
        what: String, required: Bool = false
    ) throws(PushwooshFailure) {
        switch n[key] {
        case nil:
            if required { throw .argument("\(what)\(key) is required") }
        case .string(let text)?:
            out.append((plain, .string(text)))
        case .object(let members)?:
            var texts: [JSONValue] = []
            for (language, value) in members {
                guard case .string(let text) = value else { throw .argument("\(what)\(key).\(language) must be a string") }
                texts.append(.object([("language", .string(language)), ("text", .string(text))]))
            }
            let fallback = members.first { $0.key == "en" }?.value ?? members.first?.value ?? .string("")
            out.append((plain, fallback))
            out.append((localized, .array(texts)))
        case let other?:
            throw .argument("\(what)\(key) must be a string or an object of language codes and texts, not \(Read.kind(other))")
        }
    }

    /// `ios_badges`: a number sets the badge; "+n" or "-n" changes it by n.
    static func badgeChange(_ value: JSONValue, what: String) throws(PushwooshFailure) -> JSONValue {
        let text: String
        switch value {
        case .number(let number): text = number
        case .string(let string): text = string
        default: throw .argument("\(what)ios_badges must be a number or \"+n\"")
        }
        if text.hasPrefix("+") || text.hasPrefix("-") {
            guard let delta = Int32(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
                throw .argument("\(what)ios_badges: \(text) is not \"+n\" or \"-n\"")
            }
            return .object([("increment", .number("\(delta)"))])
        }
        guard let count = UInt32(text) else { throw .argument("\(what)ios_badges: \(text) is not a badge number") }
        return .object([("set", .number("\(count)"))])
    }

    /// Pushwire's `data` (keys for the payload's root): `ios_root_params`' keys, and Pushwoosh's
    /// `data` as the JSON text under `u`, where Pushwoosh's SDKs read it.
    static func rootKeys(_ n: JSONValue, what: String) throws(PushwooshFailure) -> String? {
        var root: [(key: String, value: JSONValue)] = []
        if let params = n["ios_root_params"] {
            guard case .object(let members) = params else { throw .argument("\(what)ios_root_params must be an object") }
            root += members
        }
        if let data = n["data"] {
            guard case .object = data else { throw .argument("\(what)data must be an object") }
            if root.contains(where: { $0.key == "u" }) { throw .argument("\(what)ios_root_params may not set \"u\" together with data") }
            root.append(("u", .string(ProtoJSON.serialize(data, pretty: false))))
        }
        return root.isEmpty ? nil : ProtoJSON.serialize(.object(root), pretty: false)
    }

    /// Pushwoosh's `conditions`: `[[tag, operator, value], …]` with EQ, IN, GTE, LTE, BETWEEN.
    static func tagConditions(_ value: JSONValue, what: String) throws(PushwooshFailure) -> JSONValue {
        guard case .array(let items) = value else { throw .argument("\(what)conditions must be a list of [tag, operator, value]") }
        var out: [JSONValue] = []
        for item in items {
            guard case .array(let parts) = item, parts.count == 3, case .string(let tag) = parts[0], case .string(let op) = parts[1] else {
                throw .argument("\(what)conditions: each condition is [tag, operator, value]")
            }
            let operators = ["EQ": "CONDITION_OPERATOR_EQ", "IN": "CONDITION_OPERATOR_IN", "GTE": "CONDITION_OPERATOR_GTE",
                             "LTE": "CONDITION_OPERATOR_LTE", "BETWEEN": "CONDITION_OPERATOR_BETWEEN"]
            guard let name = operators[op.uppercased()] else {
                throw .argument("\(what)conditions: operator \(op) is not supported by Pushwire (EQ, IN, GTE, LTE, BETWEEN)")
            }
            var values: [JSONValue] = []
            if case .array(let list) = parts[2] {
                for element in list { values.append(try PushwooshDevices.tagValue(element, name: tag)) }
            } else {
                values.append(try PushwooshDevices.tagValue(parts[2], name: tag))
            }
            out.append(.object([("tag", .string(tag)), ("operator", .string(name)), ("values", .array(values))]))
        }
        return .array(out)
    }

    static func deleteMessage(_ call: PushwooshCall) throws(PushwooshFailure) {
        try call.refuseUnknown(["auth", "message"])
        let token = try Read.string(call.arguments, "auth", required: true)
        let code = try Read.string(call.arguments, "message", required: true) ?? ""
        call.invoke(Methods.Messages.deleteMessage, .object([("messageCode", .string(code))]), token: token) { _ in
            call.reply(.success(.null))
        }
    }

    /// A message's status and counts, answered at once (Pushwoosh's getMsgStats answers a
    /// request id to poll instead), with Pushwire's taps per button.
    static func messageStatistics(_ call: PushwooshCall) throws(PushwooshFailure) {
        try call.refuseUnknown(["auth", "message"])
        let token = try Read.string(call.arguments, "auth", required: true)
        let code = try Read.string(call.arguments, "message", required: true) ?? ""
        call.invoke(Methods.Messages.getMessageDetails, .object([("messageCode", .string(code))]), token: token) { d in
            func number(_ key: String) -> JSONValue {
                if case .string(let text)? = d[key] { return .number(text) }
                return d[key] ?? .number("0")
            }
            var status = "unknown"
            if case .string(let name)? = d["status"], name.hasPrefix("MESSAGE_STATUS_") {
                status = String(name.dropFirst("MESSAGE_STATUS_".count)).lowercased()
            }
            var taps: [JSONValue] = []
            if case .array(let list)? = d["taps"] {
                for tap in list {
                    var count = tap["count"] ?? .number("0")
                    if case .string(let text) = count { count = .number(text) }
                    taps.append(.object([("button_id", tap["buttonId"] ?? .number("0")), ("label", tap["label"] ?? .string("")), ("count", count)]))
                }
            }
            var failures: [JSONValue] = []
            if case .array(let list)? = d["failures"] {
                for failure in list {
                    var count = failure["count"] ?? .number("0")
                    if case .string(let text) = count { count = .number(text) }
                    failures.append(.object([("reason", failure["reason"] ?? .string("")), ("count", count)]))
                }
            }
            var sendDate = JSONValue.null
            if case .string(let text)? = d["sendAtMs"], let milliseconds = Int64(text), milliseconds > 0 {
                sendDate = .string(utcText(milliseconds))
            }
            call.reply(.success(.object([("message", .object([
                ("code", d["messageCode"] ?? .string(code)),
                ("status", .string(status)),
                ("send_date", sendDate),
                ("ios_category_id", d["iosCategoryId"] ?? .number("0")),
                ("targeted", number("targeted")),
                ("sent", number("sent")),
                ("failed", number("failed")),
                ("invalid_tokens", number("invalidTokens")),
                ("opened", number("opened")),
                ("failures", .array(failures)),
                ("taps", .array(taps)),
            ]))])))
        }
    }

    // MARK: Dates (UTC, proleptic Gregorian)

    /// "YYYY-MM-DD HH:mm" (or with ":ss") in UTC as milliseconds since 1970.
    static func utcMilliseconds(_ text: String) -> Int64? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "T" })
        guard parts.count == 2 else { return nil }
        let date = parts[0].split(separator: "-").compactMap { Int64($0) }
        let time = parts[1].split(separator: ":").compactMap { Int64($0) }
        guard date.count == 3, time.count == 2 || time.count == 3 else { return nil }
        let (year, month, day) = (date[0], date[1], date[2])
        guard (1970...9999).contains(year), (1...12).contains(month), (1...31).contains(day),
              (0...23).contains(time[0]), (0...59).contains(time[1]), time.count == 2 || (0...59).contains(time[2]) else { return nil }
        let days = daysFromCivil(year, month, day)
        guard civil(fromDays: days) == (year, month, day) else { return nil }  // 2026-02-30
        let seconds = days * 86_400 + time[0] * 3600 + time[1] * 60 + (time.count == 3 ? time[2] : 0)
        return seconds * 1000
    }

    /// Milliseconds since 1970 as "YYYY-MM-DD HH:mm:ss" UTC.
    static func utcText(_ milliseconds: Int64) -> String {
        let seconds = milliseconds / 1000
        let (year, month, day) = civil(fromDays: seconds / 86_400)
        let rest = seconds % 86_400
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(rest / 3600)):\(two(rest % 3600 / 60)):\(two(rest % 60))"
    }

    // Howard Hinnant's days_from_civil and civil_from_days.
    private static func daysFromCivil(_ y0: Int64, _ m: Int64, _ d: Int64) -> Int64 {
        let y = m <= 2 ? y0 - 1 : y0
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let y = yoe + era * 400
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? y + 1 : y, m, d)
    }
}
