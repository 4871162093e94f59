import Foundation
import PushwireClient
import PushwireWire

/// `pushwire device register|track|unregister|tags` and `pushwire category sync`: what a device does,
/// by application code (no token needed); `pushwire device get`: what the application knows of
/// one device (Messages/GetDevice, with the application's access token).
enum DeviceCommands {
    /// Turns the options of `device (and `category sync`) <subcommand>` into its request.
    /// - Throws: `UsageError` (exit 64) for a missing, repeated, unknown or malformed option.
    static func parse(_ subcommand: String, _ scanned: ScannedArguments, command: String) throws(UsageError) -> GroupCommand {
        _ = try scanned.positionals([], command: command)
        if subcommand == "get" {
            // The application is the access token's (--token), as for `message`.
            try scanned.allow(["--hwid"], command: command)
            var request = GetDeviceRequest()
            request.hwid = try scanned.required("--hwid", command: command)
            return .getDevice(request)
        }
        let application = try scanned.required("--app", command: command)
        switch subcommand {
        case "register":
            try scanned.allow(["--app", "--hwid", "--push-token", "--type", "--language", "--timezone", "--user", "--app-version", "--tag", "--known-version"], command: command)
            var request = RegisterDeviceRequest()
            request.application = application
            request.hwid = try scanned.required("--hwid", command: command)
            request.pushToken = try scanned.value("--push-token", command: command) ?? ""
            request.deviceType = try ValueSyntax.deviceType(try scanned.value("--type", command: command) ?? "ios", option: "--type", command: command)
            request.language = try scanned.value("--language", command: command) ?? ""
            if let timezone = try scanned.value("--timezone", command: command) {
                request.timezone = try offsetSeconds(timezone, command: command)
            }
            request.userID = try scanned.value("--user", command: command) ?? ""
            request.appVersion = try scanned.value("--app-version", command: command) ?? ""
            for text in scanned.values("--tag") {
                let (name, value) = try ValueSyntax.pair(text, option: "--tag", command: command)
                var tag = Tag()
                tag.name = name
                tag.value = try ValueSyntax.tagValue(value, option: "--tag", command: command)
                request.tags.append(tag)
            }
            request.knownCategoriesVersion = try version(scanned, command: command)
            return .registerDevice(request)
        case "track":
            return .trackAction(try trackRequest(application: application, scanned, command: command))
        case "unregister":
            try scanned.allow(["--app", "--hwid"], command: command)
            var request = UnregisterDeviceRequest()
            request.application = application
            request.hwid = try scanned.required("--hwid", command: command)
            return .unregisterDevice(request)
        case "tags":
            try scanned.allow(["--app", "--hwid", "--set", "--increment", "--remove"], command: command)
            let hwid = try scanned.required("--hwid", command: command)
            var updates: [TagUpdate] = []
            for flag in scanned.flags {
                var update = TagUpdate()
                switch flag.name {
                case "--set":
                    let (name, value) = try ValueSyntax.pair(flag.value, option: "--set", command: command)
                    update.name = name
                    update.operation = .set(try ValueSyntax.tagValue(value, option: "--set", command: command))
                case "--increment":
                    let (name, amount) = try ValueSyntax.pair(flag.value, option: "--increment", command: command)
                    guard let number = Int64(amount) else {
                        throw UsageError(message: "--increment expects name=INTEGER, got '\(flag.value)'", command: command)
                    }
                    update.name = name
                    update.operation = .increment(number)
                case "--remove":
                    update.name = flag.value
                    update.operation = .remove(true)
                default:
                    continue
                }
                updates.append(update)
            }
            if updates.isEmpty {
                var request = GetTagsRequest()
                request.application = application
                request.hwid = hwid
                return .getTags(request)
            }
            var request = SetTagsRequest()
            request.application = application
            request.hwid = hwid
            request.updates = updates
            return .setTags(request)
        default: // "sync", reached from the category group
            try scanned.allow(["--app", "--known-version"], command: command)
            var request = SyncCategoriesRequest()
            request.application = application
            request.knownVersion = try version(scanned, command: command)
            return .syncCategories(request)
        }
    }

    /// `device track`: an open without `--button`, a tap of button `--button` (of the message's
    /// category, `--category`) with it, and the text typed into a text-input button with `--text`.
    private static func trackRequest(application: String, _ scanned: ScannedArguments, command: String) throws(UsageError) -> TrackActionRequest {
        try scanned.allow(["--app", "--hwid", "--message", "--button", "--category", "--text"], command: command)
        var request = TrackActionRequest()
        request.application = application
        request.hwid = try scanned.required("--hwid", command: command)
        request.messageCode = try scanned.required("--message", command: command)
        guard let button = try scanned.value("--button", command: command) else {
            if scanned.values("--category").first != nil || scanned.values("--text").first != nil {
                throw UsageError(message: "--category and --text describe a button tap: give --button too", command: command)
            }
            request.kind = .open
            return request
        }
        guard let buttonID = UInt32(button) else {
            throw UsageError(message: "--button expects the button's id (0, 1, …), got '\(button)'", command: command)
        }
        guard let categoryText = try scanned.value("--category", command: command) else {
            throw UsageError(message: "a button tap needs --category: the id of the message's category ('message details' shows it)", command: command)
        }
        guard let categoryID = UInt32(categoryText), categoryID > 0 else {
            throw UsageError(message: "--category expects the category's id, got '\(categoryText)'", command: command)
        }
        request.kind = .button
        request.buttonID = buttonID
        request.categoryID = categoryID
        request.textInput = try scanned.value("--text", command: command) ?? ""
        return request
    }

    /// `device get`'s report: registration, badge, tags and the token state (a refused token
    /// with since when, UTC).
    static func describe(_ device: GetDeviceResponse) -> String {
        var lines = ["device \(device.hwid)"]
        lines.append("  platform:  \(MessageCommands.platformName(device.deviceType))")
        lines.append("  language:  \(device.language.isEmpty ? "unknown" : device.language)")
        lines.append("  user:      \(device.userID.isEmpty ? "none" : device.userID)")
        lines.append("  token:     \(tokenState(device))")
        if !device.pushToken.isEmpty { lines.append("  push token: \(device.pushToken)") }
        lines.append("  badge:     \(device.badge)")
        lines.append("  tags:\n" + Render.tags(device.tags))
        return lines.joined(separator: "\n")
    }

    /// "live", "none", or "dead since <UTC time>" / "invalid since …" (not targeted until the
    /// device registers another token).
    static func tokenState(_ device: GetDeviceResponse) -> String {
        let refused: String
        switch device.tokenState {
        case .live: return "live (targeted)"
        case .noToken: return "none (not targeted)"
        case .dead: refused = "dead (the push service said it is no longer valid)"
        case .invalid: refused = "invalid (the push service said it was never valid for this app)"
        default: return "unknown"
        }
        let since = device.tokenRefusedAtMS > 0
            ? "since " + ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(device.tokenRefusedAtMS) / 1000))
            : "since an unknown time"
        return "\(refused) \(since); not targeted until the device registers another token"
    }

    /// `category sync --json` prints SyncCategoriesResponse's `version` and `notModified` as
    /// `categoriesVersion` and `categoriesNotModified`, the names of `device register --json`
    /// (RegisterDeviceResponse): a script reads the categories version under one name. The proto
    /// fields keep their names, so the wire, the HTTP door's JSON and `pushwire call` are unchanged.
    static let syncCategoriesJSONNames = ["version": "categoriesVersion", "notModified": "categoriesNotModified"]

    private static func version(_ scanned: ScannedArguments, command: String) throws(UsageError) -> UInt64 {
        guard let text = try scanned.value("--known-version", command: command) else { return 0 }
        guard let version = UInt64(text) else {
            throw UsageError(message: "--known-version expects a non-negative integer, got '\(text)'", command: command)
        }
        return version
    }

    /// `3600`, `-18000`, `+02:00` or `-05:30` as seconds east of UTC.
    private static func offsetSeconds(_ text: String, command: String) throws(UsageError) -> Int32 {
        if let seconds = Int32(text) { return seconds }
        let sign: Int32 = text.hasPrefix("-") ? -1 : 1
        let parts = text.drop(while: { $0 == "+" || $0 == "-" }).split(separator: ":")
        if (text.hasPrefix("+") || text.hasPrefix("-")), parts.count == 2, let hours = Int32(parts[0]), let minutes = Int32(parts[1]),
           (0..<24).contains(hours), (0..<60).contains(minutes) {
            return sign * (hours * 3600 + minutes * 60)
        }
        throw UsageError(message: "--timezone expects seconds east of UTC or ±HH:MM, got '\(text)'", command: command)
    }

    /// Calls the server and prints the result (one JSON line with `--json`).
    /// - Throws: `CommandFailure` (exit 1) with the call's status.
    static func run(_ operation: GroupCommand, session: Session) async throws(CommandFailure) {
        let json = session.options.json
        switch operation {
        case .registerDevice(let request):
            let response = try await session.call(Methods.Devices.registerDevice, request, token: nil)
            if request.pushToken.isEmpty {
                // The server accepts it (a device may register before it has a token), but no
                // message reaches it: say so rather than let a send look like it went nowhere.
                printError("warning: \(request.hwid) has no push token (--push-token): it is never sent a notification until it registers with one")
            }
            if json { return Session.printJSON(response) }
            print("registered \(request.hwid) in \(request.application); categories v\(response.categoriesVersion)")
            if response.categoriesNotModified {
                print("categories v\(response.categoriesVersion) not modified")
            } else if !response.iosCategories.isEmpty {
                print("ios categories:\n" + Render.categories(response.iosCategories))
            }
        case .trackAction(let request):
            let response = try await session.call(Methods.Devices.trackAction, request, token: nil)
            if json { return Session.printJSON(response) }
            let what = request.kind == .open ? "an open" : "a tap of button \(request.buttonID)"
            print(response.recorded ? "recorded \(what) of message \(request.messageCode) by \(request.hwid)"
                                    : "already recorded: \(what) of message \(request.messageCode) by \(request.hwid)")
        case .unregisterDevice(let request):
            let response = try await session.call(Methods.Devices.unregisterDevice, request, token: nil)
            if json { return Session.printJSON(response) }
            print("unregistered \(request.hwid): it is no longer targeted until it registers again")
        case .setTags(let request):
            let response = try await session.call(Methods.Devices.setTags, request, token: nil)
            if json { return Session.printJSON(response) }
            print("tags of \(request.hwid):\n" + Render.tags(response.tags))
        case .getTags(let request):
            let response = try await session.call(Methods.Devices.getTags, request, token: nil)
            if json { return Session.printJSON(response) }
            print("tags of \(request.hwid):\n" + Render.tags(response.tags))
        case .getDevice(let request):
            let response = try await session.call(Methods.Messages.getDevice, request, token: session.options.token)
            if json { return Session.printJSON(response) }
            print(describe(response))
        case .syncCategories(let request):
            let response = try await session.call(Methods.Devices.syncCategories, request, token: nil)
            // RegisterDevice's names for the same two things (the wire's own stay: `pushwire call`).
            if json { return Session.printJSON(response, renaming: syncCategoriesJSONNames) }
            if response.notModified {
                print("categories v\(response.version) not modified")
            } else {
                print("categories v\(response.version):\n" + Render.categories(response.categories))
            }
        default:
            break
        }
    }
}
