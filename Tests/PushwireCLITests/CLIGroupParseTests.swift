import XCTest
import Foundation
import PushwireWire
@testable import pushwire

/// Flags → request message for every group subcommand, without a server.
final class CLIGroupParseTests: XCTestCase {
    private func parse(_ arguments: [String], environment: [String: String] = [:]) throws -> (GroupCommand, GlobalOptions) {
        let invocation = try Invocation.parse(arguments, environment: environment)
        guard case .operation(let command) = invocation.command else {
            throw XCTSkip("not a group command: \(invocation.command)")
        }
        return (command, invocation.options)
    }

    private func command(_ arguments: [String], token: Bool = false) throws -> GroupCommand {
        try parse(arguments, environment: token ? ["PUSHWIRE_TOKEN": "t"] : [:]).0
    }

    private func usageError(_ arguments: [String], environment: [String: String] = ["PUSHWIRE_TOKEN": "t"], file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let invocation = try Invocation.parse(arguments, environment: environment)
            XCTFail("\(arguments) parsed as \(invocation.command)", file: file, line: line)
            return ""
        } catch {
            return error.message
        }
    }

    private func temporaryFile(_ contents: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pushwire-cli-\(UUID().uuidString)")
        try Data(contents.utf8).write(to: url)
        addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url.path
    }

    func testAppCreate() throws {
        let (command, options) = try parse(["app", "create", "--name", "Shop", "--admin-token", "adm", "--json"])
        var expected = CreateApplicationRequest()
        expected.name = "Shop"
        XCTAssertEqual(command, .createApplication(expected))
        XCTAssertEqual(options.adminToken, "adm")
        XCTAssertTrue(options.json)

        let key = try temporaryFile("-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n")
        let withAPNs = try self.command(["app", "create", "--name=Shop", "--apns-team-id", "TEAM123456", "--apns-key-id", "KEY1234567",
                                         "--apns-topic", "com.example.shop", "--apns-key-file", key, "--apns-environment", "sandbox"])
        var apns = ApnsSettings()
        apns.teamID = "TEAM123456"
        apns.keyID = "KEY1234567"
        apns.topic = "com.example.shop"
        apns.privateKeyP8 = "-----BEGIN PRIVATE KEY-----\nabc\n-----END PRIVATE KEY-----\n"
        apns.environment = .sandbox
        expected.apns = apns
        XCTAssertEqual(withAPNs, .createApplication(expected))

        XCTAssertEqual(try parse(["app", "list"], environment: ["PUSHWIRE_ADMIN_TOKEN": "env"]).1.adminToken, "env")
        XCTAssertEqual(try self.command(["app", "list"]), .listApplications)

        XCTAssertEqual(usageError(["app", "create"]), "missing --name")
        XCTAssertEqual(usageError(["app", "create", "--name", "x", "--apns-team-id", "T"]), "missing --apns-key-id")
        XCTAssertEqual(usageError(["app", "create", "--name", "x", "--hwid", "h"]), "'app create' does not take --hwid")
        XCTAssertEqual(usageError(["app", "create", "--name", "x", "--apns-team-id", "T", "--apns-key-id", "K", "--apns-topic", "t",
                                   "--apns-key-file", "/nonexistent.p8"]), "--apns-key-file: cannot read '/nonexistent.p8'")
        XCTAssertEqual(usageError(["app", "list", "extra"]), "unexpected argument 'extra'")
    }

    func testAppUpdate() throws {
        var expected = UpdateApplicationRequest()
        expected.application = "A1B2C-3D4E5"
        expected.name = "Renamed"
        expected.rotateAccessToken = true
        XCTAssertEqual(try command(["app", "update", "A1B2C-3D4E5", "--name", "Renamed", "--rotate-token"]), .updateApplication(expected))
        var clear = UpdateApplicationRequest()
        clear.application = "A1B2C-3D4E5"
        clear.clearApns = true
        XCTAssertEqual(try command(["app", "update", "--clear-apns", "A1B2C-3D4E5"]), .updateApplication(clear))
        XCTAssertEqual(usageError(["app", "update", "A1B2C-3D4E5"]),
                       "nothing to change: give --name, --rotate-token, --clear-apns, --clear-fcm, APNs settings or --fcm-service-account")
        XCTAssertEqual(usageError(["app", "update", "--name", "x"]), "missing <code>")
        var clearFCM = UpdateApplicationRequest()
        clearFCM.application = "A1B2C-3D4E5"
        clearFCM.clearFcm = true
        XCTAssertEqual(try command(["app", "update", "A1B2C-3D4E5", "--clear-fcm"]), .updateApplication(clearFCM))
    }

    func testMessageDetailsShowTheCountsPerPlatform() {
        var details = GetMessageDetailsResponse()
        details.messageCode = "M"
        details.status = .done
        var ios = PlatformCount(), android = PlatformCount()
        ios.deviceType = .ios
        ios.targeted = 2
        ios.sent = 2
        android.deviceType = .android
        android.targeted = 3
        android.sent = 1
        android.failed = 2
        android.invalidTokens = 1
        details.platforms = [ios, android]
        let text = MessageCommands.describe(details)
        XCTAssertTrue(text.contains("  platforms:\n    iOS: targeted 2, sent 2, failed 0 (invalid tokens: 0)\n"
                                    + "    Android: targeted 3, sent 1, failed 2 (invalid tokens: 1)\n"), text)
    }

    func testDeviceGetNeedsTheTokenAndPrintsTheTokenState() throws {
        var request = GetDeviceRequest()
        request.hwid = "phone-1"
        XCTAssertEqual(try command(["device", "get", "--hwid", "phone-1"], token: true), .getDevice(request))
        XCTAssertEqual(usageError(["device", "get", "--hwid", "h"], environment: [:]),
                       "needs the application's access token: --token or $PUSHWIRE_TOKEN")
        XCTAssertEqual(usageError(["device", "get"]), "missing --hwid")
        XCTAssertEqual(usageError(["device", "get", "--hwid", "h", "--app", "A"]), "'device get' does not take --app")

        var device = GetDeviceResponse()
        device.hwid = "phone-1"
        device.deviceType = .ios
        device.pushToken = "abcd"
        device.tokenState = .dead
        device.tokenRefusedAtMS = 1_754_000_000_000
        XCTAssertTrue(DeviceCommands.describe(device).contains(
            "  token:     dead (the push service said it is no longer valid) since 2025-07-31T22:13:20Z; "
            + "not targeted until the device registers another token"), DeviceCommands.describe(device))
        device.tokenState = .invalid
        device.tokenRefusedAtMS = 0
        XCTAssertTrue(DeviceCommands.describe(device).contains("  token:     invalid (the push service said it was never valid for this app) since an unknown time"))
        device.tokenState = .live
        XCTAssertTrue(DeviceCommands.describe(device).contains("  token:     live (targeted)\n  push token: abcd\n"))
    }

    func testAppFCMServiceAccount() throws {
        let path = NSTemporaryDirectory() + "pushwire-cli-fcm-\(getpid()).json"
        try Data(#"{"type":"service_account"}"#.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var create = CreateApplicationRequest()
        create.name = "x"
        var settings = FcmSettings()
        settings.serviceAccountJSON = #"{"type":"service_account"}"#
        create.fcm = settings
        XCTAssertEqual(try command(["app", "create", "--name", "x", "--fcm-service-account", path]), .createApplication(create))
        var update = UpdateApplicationRequest()
        update.application = "A1B2C-3D4E5"
        update.fcm = settings
        XCTAssertEqual(try command(["app", "update", "A1B2C-3D4E5", "--fcm-service-account", path]), .updateApplication(update))
        XCTAssertEqual(usageError(["app", "update", "A1B2C-3D4E5", "--fcm-service-account", path, "--clear-fcm"]),
                       "--clear-fcm cannot be combined with --fcm-service-account")
        XCTAssertEqual(usageError(["app", "create", "--name", "x", "--fcm-service-account", "/nonexistent.json"]),
                       "--fcm-service-account: cannot read '/nonexistent.json'")
    }

    func testDeviceRegister() throws {
        let command = try self.command(["device", "register", "--app", "A1B2C-3D4E5", "--hwid", "h1", "--push-token", "abcd01",
                                        "--language", "fr", "--timezone", "+01:30", "--user", "u7", "--app-version", "2.4.1",
                                        "--tag", "plan=gold", "--tag", "age=int:42", "--tag", "vip=bool:true",
                                        "--tag", "since=date:2026-11-29", "--tag", "topics=list:a,b,c", "--tag", "url=https://x",
                                        "--known-version", "3"])
        var expected = RegisterDeviceRequest()
        expected.application = "A1B2C-3D4E5"
        expected.hwid = "h1"
        expected.pushToken = "abcd01"
        expected.deviceType = .ios
        expected.language = "fr"
        expected.timezone = 5400
        expected.userID = "u7"
        expected.appVersion = "2.4.1"
        expected.knownCategoriesVersion = 3
        func tag(_ name: String, _ kind: TagValue.Kind) -> Tag {
            var tag = Tag()
            tag.name = name
            var value = TagValue()
            value.kind = kind
            tag.value = value
            return tag
        }
        var list = StringList()
        list.values = ["a", "b", "c"]
        expected.tags = [tag("plan", .stringValue("gold")), tag("age", .intValue(42)), tag("vip", .boolValue(true)),
                         tag("since", .dateValue(1_795_910_400)), tag("topics", .listValue(list)), tag("url", .stringValue("https://x"))]
        XCTAssertEqual(command, .registerDevice(expected))

        guard case .registerDevice(let android) = try self.command(["device", "register", "--app", "A", "--hwid", "h", "--type", "3",
                                                                      "--timezone", "-18000"]) else { return XCTFail() }
        XCTAssertEqual(android.deviceType, .android)
        XCTAssertEqual(android.timezone, -18000)

        XCTAssertEqual(usageError(["device", "register", "--hwid", "h"]), "missing --app")
        XCTAssertEqual(usageError(["device", "register", "--app", "A"]), "missing --hwid")
        XCTAssertEqual(usageError(["device", "register", "--app", "A", "--hwid", "h", "--tag", "n=int:x"]), "--tag: 'x' is not an integer")
        XCTAssertEqual(usageError(["device", "register", "--app", "A", "--hwid", "h", "--tag", "novalue"]), "--tag expects name=value, got 'novalue'")
        XCTAssertEqual(usageError(["device", "register", "--app", "A", "--hwid", "h", "--timezone", "CET"]),
                       "--timezone expects seconds east of UTC or ±HH:MM, got 'CET'")
        XCTAssertTrue(usageError(["device", "register", "--app", "A", "--hwid", "h", "--type", "palm"]).hasPrefix("--type: unknown platform 'palm'"))
    }

    private func setKind(_ update: TagUpdate) -> TagValue.Kind? {
        if case .set(let value)? = update.operation { return value.kind }
        return nil
    }

    func testDeviceUnregisterAndTags() throws {
        var unregister = UnregisterDeviceRequest()
        unregister.application = "A"
        unregister.hwid = "h"
        XCTAssertEqual(try command(["device", "unregister", "--app", "A", "--hwid", "h"]), .unregisterDevice(unregister))

        var get = GetTagsRequest()
        get.application = "A"
        get.hwid = "h"
        XCTAssertEqual(try command(["device", "tags", "--app", "A", "--hwid", "h"]), .getTags(get))

        guard case .setTags(let set) = try command(["device", "tags", "--app", "A", "--remove", "old", "--hwid", "h",
                                                     "--set", "level=int:5", "--increment", "visits=-2", "--set", "at=date:1700000000"]) else {
            return XCTFail()
        }
        XCTAssertEqual(set.application, "A")
        XCTAssertEqual(set.hwid, "h")
        XCTAssertEqual(set.updates.map(\.name), ["old", "level", "visits", "at"], "applied in command-line order")
        XCTAssertEqual(set.updates[0].operation, .remove(true))
        XCTAssertEqual(setKind(set.updates[1]), .intValue(5))
        XCTAssertEqual(set.updates[2].operation, .increment(-2))
        XCTAssertEqual(setKind(set.updates[3]), .dateValue(1_700_000_000))

        XCTAssertEqual(usageError(["device", "tags", "--app", "A", "--hwid", "h", "--increment", "n=lots"]), "--increment expects name=INTEGER, got 'n=lots'")
        XCTAssertEqual(usageError(["device", "tags", "--app", "A", "--hwid", "h", "--set", "d=date:yesterday"]),
                       "--set: 'yesterday' is not a date (2026-11-29, 2026-11-29T18:30:00Z or unix seconds)")
        XCTAssertEqual(usageError(["device", "frobnicate"]), "unknown command 'device frobnicate'")
        XCTAssertEqual(usageError(["device"]), "missing subcommand: register, track, unregister, tags, get")
    }

    func testCategoryUpsertFromFlags() throws {
        guard case .upsertCategory(let request) = try command(["category", "upsert", "--name", "Feedback",
                                                                "--button", "Yes:foreground,fr=Oui", "--button", "No:destructive",
                                                                "--button", "Reply:input=Send|Type a reply,auth"], token: true),
              let category = request.category else {
            return XCTFail()
        }
        XCTAssertEqual(category.categoryID, 0)
        XCTAssertEqual(category.name, "Feedback")
        XCTAssertEqual(category.buttons.map(\.id), [0, 1, 2])
        XCTAssertEqual(category.buttons.map(\.label), ["Yes", "No", "Reply"])
        XCTAssertEqual(category.buttons.map(\.startApplication), [true, false, false])
        XCTAssertEqual(category.buttons.map(\.authenticationRequired), [true, false, true])
        XCTAssertEqual(category.buttons.map(\.destructive), [false, true, false])
        XCTAssertEqual(category.buttons.map(\.behavior), [.default, .default, .textInput])
        XCTAssertEqual(category.buttons[0].localizedLabels.map { "\($0.language)=\($0.text)" }, ["fr=Oui"])
        XCTAssertEqual(category.buttons[2].textInputButtonTitle, "Send")
        XCTAssertEqual(category.buttons[2].textInputPlaceholder, "Type a reply")

        guard case .upsertCategory(let replace) = try command(["category", "upsert", "--id", "66", "--name", "One", "--button", "Ok"], token: true) else {
            return XCTFail()
        }
        XCTAssertEqual(replace.category?.categoryID, 66)

        XCTAssertEqual(usageError(["category", "upsert", "--name", "X", "--button", "Yes:sideways"]),
                       "--button 'Yes:sideways': unknown option 'sideways' (foreground, background, destructive, auth, input=TITLE|PLACEHOLDER, LANG=LABEL)")
        XCTAssertEqual(usageError(["category", "upsert", "--name", "X"]), "missing --button (or --file)")
        XCTAssertEqual(usageError(["category", "upsert", "--name", "X", "--button", ":foreground"]), "--button ':foreground' has no label")
        XCTAssertEqual(usageError(["category", "list"], environment: [:]), "needs the application's access token: --token or $PUSHWIRE_TOKEN")
    }

    func testCategoryUpsertFromFile() throws {
        let file = try temporaryFile(#"{"name":"Rate","buttons":[{"id":0,"label":"Love it","startApplication":true},{"id":1,"label":"Later","destructive":true}]}"#)
        let (command, options) = try parse(["category", "upsert", "--token", "tok", "--file", file])
        XCTAssertEqual(options.token, "tok")
        guard case .upsertCategory(let request) = command, let category = request.category else { return XCTFail() }
        XCTAssertEqual(category.name, "Rate")
        XCTAssertEqual(category.buttons.map(\.label), ["Love it", "Later"])
        XCTAssertEqual(category.buttons.map(\.destructive), [false, true])

        let bad = try temporaryFile(#"{"name":"Rate","buttonz":[]}"#)
        XCTAssertEqual(usageError(["category", "upsert", "--file", bad]), #"--file: unknown field "buttonz" in pushwire.v1.Category"#)
        XCTAssertEqual(usageError(["category", "upsert", "--file", file, "--name", "x"]), "--file cannot be combined with --name or --button")
    }

    func testCategoryDeleteListSync() throws {
        var delete = DeleteCategoryRequest()
        delete.categoryID = 65
        XCTAssertEqual(try command(["category", "delete", "--id", "65"], token: true), .deleteCategory(delete))
        XCTAssertEqual(try command(["category", "list", "--token", "t"]), .listCategories)
        var sync = SyncCategoriesRequest()
        sync.application = "A1B2C-3D4E5"
        sync.knownVersion = 7
        XCTAssertEqual(try command(["category", "sync", "--app", "A1B2C-3D4E5", "--known-version", "7"]), .syncCategories(sync))
        XCTAssertEqual(usageError(["category", "delete", "--id", "zero"]), "--id expects a category id (a positive integer), got 'zero'")
        XCTAssertEqual(usageError(["category", "sync", "--app", "A", "--known-version", "-1"]), "--known-version expects a non-negative integer, got '-1'")
    }

    func testMessageSendFromFlags() throws {
        guard case .createMessage(let request) = try command([
            "message", "send", "--content", "Hello", "--title", "Hi", "--category", "65", "--device", "h1", "--device", "h2",
            "--user", "u1", "--platform", "ios", "--language-content", "fr=Bonjour", "--language-content", "de=Hallo",
            "--language-title", "fr=Salut", "--data", #"{"order":42}"#, "--send-at", "2026-11-29T18:30:00Z",
            "--transaction-id", "tx-1", "--badge", "+1", "--sound", "default", "--thread-id", "orders", "--trim",
        ], token: true) else { return XCTFail() }
        XCTAssertEqual(request.notifications.count, 1)
        let notification = request.notifications[0]
        XCTAssertEqual(notification.content, "Hello")
        XCTAssertEqual(notification.title, "Hi")
        XCTAssertEqual(notification.iosCategoryID, 65)
        XCTAssertEqual(notification.targeting?.devices, ["h1", "h2"])
        XCTAssertEqual(notification.targeting?.userIDs, ["u1"])
        XCTAssertEqual(notification.targeting?.platforms, [.ios])
        XCTAssertEqual(notification.localizedContent.map { "\($0.language)=\($0.text)" }, ["fr=Bonjour", "de=Hallo"])
        XCTAssertEqual(notification.localizedTitle.map { "\($0.language)=\($0.text)" }, ["fr=Salut"])
        XCTAssertEqual(notification.data, #"{"order":42}"#)
        XCTAssertEqual(notification.sendAtMS, 1_795_977_000_000)
        XCTAssertEqual(notification.transactionID, "tx-1")
        XCTAssertEqual(notification.iosBadge?.change, .increment(1))
        XCTAssertEqual(notification.iosSound, "default")
        XCTAssertEqual(notification.iosThreadID, "orders")
        XCTAssertTrue(notification.trimToFit)

        guard case .createMessage(let everyone) = try command(["message", "send", "--content", "All", "--badge", "3"], token: true) else { return XCTFail() }
        XCTAssertNil(everyone.notifications[0].targeting, "no selectors: every device of the application")
        XCTAssertEqual(everyone.notifications[0].iosBadge?.change, .set(3))

        XCTAssertEqual(usageError(["message", "send", "--content", "x", "--data", "[1]"]), #"--data expects a JSON object, e.g. '{"order": 42}'"#)
        XCTAssertTrue(usageError(["message", "send", "--content", "x", "--send-at", "tomorrow"]).hasPrefix("--send-at expects an ISO 8601 time"))
        XCTAssertEqual(usageError(["message", "send", "--title", "x"]), "missing --content")
        guard case .createMessageNamingCategory(let named, let name) = try command(["message", "send", "--content", "x", "--category", "YesNo"], token: true) else {
            return XCTFail()
        }
        XCTAssertEqual(name, "YesNo")
        XCTAssertEqual(named.notifications[0].iosCategoryID, 0, "resolved when sending")
        XCTAssertEqual(usageError(["message", "send", "--content", "x", "--category", "0"]), "--category expects a category id or name, got '0'")
    }

    func testMessageSendFromFile() throws {
        let one = try temporaryFile(#"{"content":"Hi","iosCategoryId":65,"targeting":{"conditions":[{"tag":"plan","operator":"CONDITION_OPERATOR_EQ","values":[{"stringValue":"gold"}]}]}}"#)
        guard case .createMessage(let single) = try command(["message", "send", "--file", one], token: true) else { return XCTFail() }
        XCTAssertEqual(single.notifications.count, 1)
        XCTAssertEqual(single.notifications[0].iosCategoryID, 65)
        XCTAssertEqual(single.notifications[0].targeting?.conditions.first?.tag, "plan")
        XCTAssertEqual(single.notifications[0].targeting?.conditions.first?.operator, .eq)

        let many = try temporaryFile(#"{"notifications":[{"content":"a"},{"content":"b"}]}"#)
        guard case .createMessage(let batch) = try command(["message", "send", "--file", many], token: true) else { return XCTFail() }
        XCTAssertEqual(batch.notifications.map(\.content), ["a", "b"])
        XCTAssertEqual(usageError(["message", "send", "--file", many, "--content", "x"]), "--file cannot be combined with --content")
    }

    func testMessageDetailsAndDelete() throws {
        var details = GetMessageDetailsRequest()
        details.messageCode = "M-1"
        XCTAssertEqual(try command(["message", "details", "M-1"], token: true), .getMessageDetails(details))
        var delete = DeleteMessageRequest()
        delete.messageCode = "M-1"
        XCTAssertEqual(try command(["--token", "t", "message", "delete", "M-1"]), .deleteMessage(delete))
        XCTAssertEqual(usageError(["message", "details"]), "missing <message code>")
        XCTAssertEqual(usageError(["message", "details", "a", "b"]), "unexpected argument 'b'")
    }

    func testDemoAndHelp() throws {
        XCTAssertEqual(try command(["demo"]), .demo)
        XCTAssertEqual(try command(["--server", "127.0.0.1:9", "demo"]), .demo)
        XCTAssertEqual(usageError(["demo", "--name", "x"]), "'demo' does not take --name")
        for topic in ["app", "app create", "app list", "app update", "device", "device register", "device track", "device unregister", "device tags",
                      "category", "category upsert", "category delete", "category list", "category sync", "message", "message send",
                      "message details", "message cancel", "message delete", "demo"] {
            let words = topic.split(separator: " ").map(String.init)
            XCTAssertEqual(try Invocation.parse(words + ["--help"], environment: [:]).command, .help(topic: topic))
            XCTAssertEqual(try Invocation.parse(["help"] + words, environment: [:]).command, .help(topic: topic))
            // `message delete` is another name for `message cancel`, whose page it shows.
            XCTAssertTrue(Help.text(for: topic).contains("USAGE: pushwire \(topic == "message delete" ? "message cancel" : topic)"), topic)
        }
    }
}
