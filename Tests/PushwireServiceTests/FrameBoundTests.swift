import Foundation
import PushwireRuntime
import PushwireWire
import XCTest
@testable import PushwireService

/// Issue 16, item 3: no answer exceeds the server's `max_frame_size`. What accumulates across
/// calls is bounded where it is written (tags per device, categories per application), errors
/// quote callers' values only up to a length, and the encoder refuses to write a larger frame.
final class FrameBoundTests: XCTestCase {
    func testTagsPerDeviceAreBoundedAtTheWrite() async throws {
        let live = try await LiveServer()
        defer { live.stop() }
        let client = try live.connect()
        let app = try live.createApplication(client, name: "tags", callID: 1)
        var register = registration(app.code, "d1")
        var callID: UInt32 = 10
        func next() -> UInt32 { callID += 1; return callID }
        _ = try client.call(Methods.Devices.registerDevice, register, callID: next())
        func setTags(_ updates: [TagUpdate]) throws -> SetTagsResponse {
            var request = SetTagsRequest()
            request.application = app.code
            request.hwid = "d1"
            request.updates = updates
            return try client.call(Methods.Devices.setTags, request, callID: next())
        }
        func set(_ name: String, _ kind: TagValue.Kind) -> TagUpdate {
            var update = TagUpdate()
            update.name = name
            update.operation = .set(tagValue(kind))
            return update
        }
        // Count: two requests of 64 reach the limit; one more tag is refused, and nothing changes.
        XCTAssertEqual(try setTags((0..<64).map { set("a\($0)", .intValue(1)) }).tags.count, 64)
        XCTAssertEqual(try setTags((0..<64).map { set("b\($0)", .intValue(1)) }).tags.count, Limits.maxTagsPerDevice)
        XCTAssertThrowsError(try setTags([set("a0", .intValue(2)), set("c0", .intValue(1))])) { error in
            XCTAssertEqual((error as? RPCError)?.code, .resourceExhausted)
            XCTAssertTrue((error as? RPCError)?.message.contains("at most \(Limits.maxTagsPerDevice) per device") == true, "\(error)")
        }
        var get = GetTagsRequest()
        get.application = app.code
        get.hwid = "d1"
        let tags = try client.call(Methods.Devices.getTags, get, callID: next()).tags
        XCTAssertEqual(tags.count, Limits.maxTagsPerDevice)
        XCTAssertEqual(tags.first { $0.name == "a0" }?.value, tagValue(.intValue(1)), "the refused update changed nothing")
        // Replacing a tag's value and removing tags still works at the limit.
        var remove = TagUpdate()
        remove.name = "b0"
        remove.operation = .remove(true)
        XCTAssertEqual(try setTags([set("a0", .intValue(3)), remove]).tags.count, Limits.maxTagsPerDevice - 1)
        // RegisterDevice's tags count too.
        register.tags = [makeTag("r0", .intValue(1)), makeTag("r1", .intValue(1))]
        XCTAssertThrowsError(try client.call(Methods.Devices.registerDevice, register, callID: next())) { error in
            XCTAssertEqual((error as? RPCError)?.code, .resourceExhausted)
        }

        // Bytes: lists of 64 × 256 bytes pass the byte limit after four tags.
        let big = TagValue.Kind.listValue(StringList(values: Array(repeating: String(repeating: "x", count: 256), count: 64)))
        let d2 = registration(app.code, "d2")
        _ = try client.call(Methods.Devices.registerDevice, d2, callID: next())
        var request = SetTagsRequest()
        request.application = app.code
        request.hwid = "d2"
        request.updates = (0..<3).map { set("l\($0)", big) }
        XCTAssertEqual(try client.call(Methods.Devices.setTags, request, callID: next()).tags.count, 3)
        request.updates = [set("l3", big), set("l4", big)]
        XCTAssertThrowsError(try client.call(Methods.Devices.setTags, request, callID: next())) { error in
            XCTAssertEqual((error as? RPCError)?.code, .resourceExhausted)
            XCTAssertTrue((error as? RPCError)?.message.contains("at most \(Limits.maxTagBytesPerDevice) per device") == true, "\(error)")
        }
        get.hwid = "d2"
        XCTAssertEqual(try client.call(Methods.Devices.getTags, get, callID: next()).tags.count, 3)
    }

    func testCategoriesPerApplicationAreBounded() async throws {
        let live = try await LiveServer()
        defer { live.stop() }
        let client = try live.connect()
        let app = try live.createApplication(client, name: "categories", callID: 1)
        // The application starts with YesNo.
        for i in 1..<Limits.maxCategoriesPerApplication {
            _ = try client.call(Methods.Categories.upsertCategory, upsertRequest(makeCategory("C\(i)", buttons: [makeButton(1, "OK")])),
                                token: app.token, callID: UInt32(10 + i))
        }
        XCTAssertThrowsError(try client.call(Methods.Categories.upsertCategory,
                                             upsertRequest(makeCategory("One too many", buttons: [makeButton(1, "OK")])),
                                             token: app.token, callID: 100)) { error in
            XCTAssertEqual((error as? RPCError)?.code, .resourceExhausted)
            XCTAssertTrue((error as? RPCError)?.message.contains("most it may hold (\(Limits.maxCategoriesPerApplication))") == true, "\(error)")
        }
        let list = try client.call(Methods.Categories.listCategories, ListCategoriesRequest(), token: app.token, callID: 101)
        XCTAssertEqual(list.categories.count, Limits.maxCategoriesPerApplication)
        // Replacing one (by id) is still allowed.
        let first = try XCTUnwrap(list.categories.first)
        _ = try client.call(Methods.Categories.upsertCategory,
                            upsertRequest(makeCategory("Renamed", id: first.categoryID, buttons: [makeButton(1, "OK")])),
                            token: app.token, callID: 102)
    }

    /// An answer larger than the server's max_frame_size is RESOURCE_EXHAUSTED, and the
    /// connection carries on; a huge unknown method path is quoted only in part.
    func testNoFrameExceedsTheServersLimit() async throws {
        let limit = 16 * 1024
        let live = try await LiveServer { $0.maxFrameSize = limit }
        defer { live.stop() }
        let client = try live.connect()
        let app = try live.createApplication(client, name: "small frames", callID: 1)
        _ = try client.call(Methods.Devices.registerDevice, registration(app.code, "d1"), callID: 2)
        var set = SetTagsRequest()
        set.application = app.code
        set.hwid = "d1"
        // Each request fits the limit; together the tags do not fit one answer.
        for round in 0..<8 {
            set.updates = (0..<8).map { i in
                var update = TagUpdate()
                update.name = "t\(round)-\(i)"
                update.operation = .set(tagValue(.stringValue(String(repeating: "v", count: 256))))
                return update
            }
            do {
                _ = try client.call(Methods.Devices.setTags, set, callID: UInt32(10 + round))
            } catch let error as RPCError where round == 7 {
                // The answer to SetTags lists every tag: with 64 of ~270 bytes it is too large
                // (the tags were written: the limit protects the connection, not the call).
                XCTAssertEqual(error.code, .resourceExhausted)
            }
        }
        var get = GetTagsRequest()
        get.application = app.code
        get.hwid = "d1"
        XCTAssertThrowsError(try client.call(Methods.Devices.getTags, get, callID: 20)) { error in
            XCTAssertEqual((error as? RPCError)?.code, .resourceExhausted)
            XCTAssertTrue((error as? RPCError)?.message.contains("exceeds the frame limit of \(limit) bytes") == true, "\(error)")
        }
        // The connection is intact.
        XCTAssertEqual(try client.call(Methods.Devices.syncCategories, { var s = SyncCategoriesRequest(); s.application = app.code; return s }(),
                                       callID: 21).version, 1)
        // An unknown method path just under the limit is answered with a short quote of it.
        let path = "/" + String(repeating: "p", count: limit - 100)
        try client.sendRawRequest(callID: 22, path: path, message: [])
        let answer = try client.nextResponse()
        XCTAssertEqual(answer.code, StatusCode.unimplemented.rawValue)
        XCTAssertLessThanOrEqual(answer.message.utf8.count, Limits.maxEchoedBytes + 32)
        XCTAssertTrue(answer.message.hasSuffix("…"), answer.message)
    }

    func testTheEncoderRefusesOversizedFrames() async throws {
        var output: [UInt8] = []
        XCTAssertFalse(HotFrames.appendResponseFrame(callID: 9, status: .ok, message: "", body: Array(repeating: 1, count: 200),
                                                     maxFrameSize: 100, to: &output))
        let frame = try Frame(decoding: Array(output.dropFirst(4)))
        guard case .response(let response)? = frame.kind else { return XCTFail("not a response: \(frame)") }
        XCTAssertEqual(frame.callID, 9)
        XCTAssertEqual(response.status?.code, StatusCode.resourceExhausted.rawValue)
        XCTAssertEqual(response.message, [])
        XCTAssertLessThanOrEqual(output.count - 4, 100)
        // With the smallest limit pushwired allows, even the explanation is left out rather than
        // exceeding it.
        output = []
        HotFrames.appendResponseFrame(callID: 9, status: .ok, message: "", body: Array(repeating: 1, count: 200), maxFrameSize: 64, to: &output)
        XCTAssertLessThanOrEqual(output.count - 4, 64)
        output = []
        XCTAssertTrue(HotFrames.appendResponseFrame(callID: 9, status: .ok, message: "", body: [1, 2], maxFrameSize: 64, to: &output))
    }

    /// With the limits, the largest answers fit the default frame: the category list of
    /// RegisterDevice (32 categories, each with 4 text-input buttons labelled in every language,
    /// every string at its longest) and a GetTags of 128 tags of empty list items.
    func testTheLargestAnswersFitTheDefaultFrame() async throws {
        let label = String(repeating: "L", count: Limits.maxLabelBytes)
        var button = Button()
        button.label = label
        button.localizedLabels = LanguageCodes.all.map { LocalizedText(language: $0, text: label) }
        button.behavior = .textInput
        button.textInputButtonTitle = label
        button.textInputPlaceholder = label
        button.destructive = true
        button.startApplication = true
        button.authenticationRequired = true
        var response = RegisterDeviceResponse()
        response.iosCategories = (0..<Limits.maxCategoriesPerApplication).map { i in
            var category = Category()
            category.categoryID = UInt32.max - UInt32(i)
            category.name = String(repeating: "N", count: Limits.maxCategoryNameBytes)
            category.buttons = (0..<Limits.maxButtons).map { b in var copy = button; copy.id = UInt32.max - UInt32(b); return copy }
            return category
        }
        response.categoriesVersion = UInt64.max
        let categories = response.encode().count
        XCTAssertLessThan(categories, 1_800_000)
        // Tags: the byte limit counts text, so empty list items cost the most per counted byte.
        var tags = GetTagsResponse()
        let perTag = Limits.maxTagBytesPerDevice / Limits.maxTagsPerDevice
        tags.tags = (0..<Limits.maxTagsPerDevice).map { i in
            makeTag(String(format: "%0\(perTag)d", i), .listValue(StringList(values: Array(repeating: "", count: Limits.maxTagListItems))))
        }
        let tagBytes = tags.encode().count
        XCTAssertLessThan(tagBytes, 90 * 1024)
        // The response frame adds a few bytes of envelope.
        XCTAssertLessThan(max(categories, tagBytes) + 64, WireProtocol.defaultMaxFrameSize)
    }

    /// Each limit's value is stated once in docs/PROTOCOL.md, and it is the one the code uses.
    func testTheProtocolDocumentStatesEachLimit() async throws {
        let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/PROTOCOL.md")
        let text = try String(contentsOf: doc, encoding: .utf8)
        let limits: [(String, String)] = [
            ("maxTagsPerDevice", "\(Limits.maxTagsPerDevice)"),
            ("maxTagBytesPerDevice", "\(Limits.maxTagBytesPerDevice)"),
            ("maxCategoriesPerApplication", "\(Limits.maxCategoriesPerApplication)"),
            ("maxEchoedBytes", "\(Limits.maxEchoedBytes)"),
            ("maxScheduleAheadMS", "\(MessageLimits.maxScheduleAheadMS / 86_400_000) days"),
            ("maxPageSize", "\(MessageLimits.maxPageSize)"),
            ("maxCountedTargets", "\(MessageLimits.maxCountedTargets)"),
        ]
        for (name, value) in limits {
            XCTAssertTrue(text.contains("(`\(name)`) | \(value) |"), "docs/PROTOCOL.md should state \(name) = \(value)")
        }
    }
}
