import Foundation
import PushwireDelivery
import PushwireSQLiteStore
import PushwireStore
import PushwireWire
import XCTest
@testable import PushwireService

/// The registration harness plus the messages service over a file sink in the data directory.
/// The pipeline is not started: tests call `send()` to deliver what is due, deterministically.
struct MessagesHarness {
    let base: Harness
    let sinkPath: String
    let pipeline: DeliveryPipeline
    let messages: MessagesService

    init(directory: String? = nil, gateway: (any NotificationGateway)? = nil, store wrapping: ((SQLiteStore) -> any MessageStore)? = nil,
         configuration: DeliveryPipeline.Configuration = MessagesHarness.fastConfiguration) async throws {
        base = try await Harness(directory: directory)
        sinkPath = (base.directory as NSString).appendingPathComponent("sink.jsonl")
        let chosen: any NotificationGateway = try gateway ?? FileSinkGateway(path: sinkPath)
        let store: any MessageStore = wrapping?(base.store) ?? base.store
        pipeline = DeliveryPipeline(store: store, configuration: configuration) { _ in chosen }
        messages = MessagesService(registry: base.registry, store: store, pipeline: pipeline)
    }

    static var fastConfiguration: DeliveryPipeline.Configuration {
        var configuration = DeliveryPipeline.Configuration()
        configuration.batchSize = 3
        configuration.retryBaseDelay = .milliseconds(10)
        configuration.retryMaxDelay = .milliseconds(40)
        configuration.idlePoll = .milliseconds(50)
        return configuration
    }

    /// Delivers every due message to the end.
    func send() async { await pipeline.runDueMessages() }

    /// Creates one notification; returns its code.
    func create(_ notification: PushwireWire.Notification, token: String) async throws -> CreateMessageResponse {
        var request = CreateMessageRequest()
        request.notifications = [notification]
        return try await messages.createMessage(request, caller: Caller(bearerToken: token))
    }

    /// The sink's lines, parsed.
    func sinkLines() throws -> [SinkLine] {
        guard let data = FileManager.default.contents(atPath: sinkPath) else { return [] }
        return try String(decoding: data, as: UTF8.self).split(separator: "\n").map { try SinkLine(String($0)) }
    }

    func details(_ code: String, token: String) async throws -> GetMessageDetailsResponse {
        var request = GetMessageDetailsRequest()
        request.messageCode = code
        return try await messages.getMessageDetails(request, caller: Caller(bearerToken: token))
    }

    /// Registers an iOS device.
    func register(_ app: String, _ hwid: String, language: String = "en", userID: String = "", type: DeviceType = .ios,
                  tags: [Tag] = [], token: String? = nil) async throws {
        var request = registration(app, hwid, token: token ?? Self.token(for: hwid), language: language)
        request.userID = userID
        request.deviceType = type
        request.tags = tags
        _ = try await base.devices.registerDevice(request)
    }

    /// A distinct hex token per hwid.
    static func token(for hwid: String) -> String {
        hwid.utf8.map { String(format: "%02x", $0) }.joined()
    }
}

/// One line of the file sink.
struct SinkLine {
    let raw: String
    let deliveryID: UInt64
    let messageCode: String
    let token: String
    let payload: String
    let json: [String: Any]

    init(_ line: String) throws {
        raw = line
        json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        deliveryID = try XCTUnwrap((json["delivery_id"] as? NSNumber)?.uint64Value)
        messageCode = try XCTUnwrap(json["message_code"] as? String)
        token = try XCTUnwrap(json["token"] as? String)
        // The payload exactly as rendered: the text between `"payload":` and the closing brace.
        let marker = try XCTUnwrap(line.range(of: #""payload":"#))
        payload = String(line[marker.upperBound...].dropLast())
    }

    var aps: [String: Any] { (json["payload"] as? [String: Any])?["aps"] as? [String: Any] ?? [:] }
    var body: String? { (aps["alert"] as? [String: Any])?["body"] as? String }
}

/// A notification with a body and targeting.
func note(_ content: String, devices: [String] = [], userIDs: [String] = [], platforms: [DeviceType] = [],
          conditions: [TagCondition] = []) -> PushwireWire.Notification {
    var n = PushwireWire.Notification()
    n.content = content
    if !devices.isEmpty || !userIDs.isEmpty || !platforms.isEmpty || !conditions.isEmpty {
        var targeting = Targeting()
        targeting.devices = devices
        targeting.userIDs = userIDs
        targeting.platforms = platforms
        targeting.conditions = conditions
        n.targeting = targeting
    }
    return n
}

func condition(_ tag: String, _ op: ConditionOperator, _ values: [TagValue.Kind]) -> TagCondition {
    var c = TagCondition()
    c.tag = tag
    c.operator = op
    c.values = values.map(tagValue)
    return c
}

func localized(_ language: String, _ text: String) -> LocalizedText {
    var t = LocalizedText()
    t.language = language
    t.text = text
    return t
}

/// A gateway that answers from a script, then forwards to another.
final class ScriptedGateway: NotificationGateway, @unchecked Sendable {
    // @unchecked: `answer` is called only from the pipeline's one fan-out at a time in these tests,
    // and the lock guards the shared record anyway.
    private let lock = NSLock()
    private var seen: [OutgoingNotification] = []
    let next: any NotificationGateway
    let answer: @Sendable (OutgoingNotification, Int) -> DeliveryOutcome?

    init(next: any NotificationGateway, answer: @escaping @Sendable (OutgoingNotification, Int) -> DeliveryOutcome?) {
        self.next = next
        self.answer = answer
    }

    var delivered: [OutgoingNotification] { lock.withLock { seen } }

    func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        var outcomes: [DeliveryOutcome?] = []
        for notification in batch {
            let count = lock.withLock { () -> Int in
                seen.append(notification)
                return seen.filter { $0.deviceToken == notification.deviceToken }.count
            }
            outcomes.append(answer(notification, count))
        }
        let forwarded = batch.enumerated().filter { outcomes[$0.offset] == nil }.map(\.element)
        var sent = await next.deliver(forwarded).makeIterator()
        return outcomes.map { $0 ?? sent.next() ?? .failed(reason: "missing") }
    }
}
