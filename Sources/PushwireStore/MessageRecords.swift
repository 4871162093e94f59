/// Where a message is in its life (the wire numbers of `MessageStatus`).
public enum MessageStatusRecord: Int64, Sendable, Equatable {
    case scheduled = 1
    case sending = 2
    case done = 3
    case cancelled = 4
}

/// A value in a tag condition. Dates compare as integers (seconds since 1970).
public enum ConditionValueRecord: Sendable, Equatable, Hashable, Codable {
    case string(String)
    case int(Int64)
    case bool(Bool)
}

/// A condition on one tag.
public struct TagConditionRecord: Sendable, Equatable, Hashable, Codable {
    /// How the tag is compared.
    public enum Operator: String, Sendable, Codable {
        case eq, `in`, gte, lte, between
    }
    /// The tag's name.
    public var tag: String
    /// The comparison.
    public var op: Operator
    /// One value for eq/gte/lte, one or more for in, two for between (all of one kind).
    public var values: [ConditionValueRecord]

    /// Creates a condition.
    public init(tag: String, op: Operator, values: [ConditionValueRecord]) {
        self.tag = tag
        self.op = op
        self.values = values
    }
}

/// Which devices a message goes to; selectors combine with AND, none means every device.
public struct TargetingRecord: Sendable, Equatable, Hashable, Codable {
    /// Explicit hwids.
    public var hwids: [String]
    /// User ids.
    public var userIDs: [String]
    /// Device type codes.
    public var platforms: [Int32]
    /// Tag conditions, all of which must hold.
    public var conditions: [TagConditionRecord]

    /// Creates a targeting.
    public init(hwids: [String] = [], userIDs: [String] = [], platforms: [Int32] = [], conditions: [TagConditionRecord] = []) {
        self.hwids = hwids
        self.userIDs = userIDs
        self.platforms = platforms
        self.conditions = conditions
    }
}

/// A message to create.
public struct NewMessageRecord: Sendable, Equatable {
    /// The owning application.
    public var applicationID: Int64
    /// The code to give it (unless its transaction id was already used).
    public var code: String
    /// The caller's idempotency key; empty for none.
    public var transactionID: String
    /// When to send, ms since 1970.
    public var sendAtMS: Int64
    /// The category whose buttons it shows; 0 for none.
    public var categoryID: UInt32
    /// Who receives it.
    public var targeting: TargetingRecord
    /// What to render: opaque to the store (the service's JSON).
    public var spec: String
    /// The lease it is created under: a server that starts the message itself from memory
    /// (`DeliveryPipeline.messagesCreated`) holds it from the start, so that the other servers'
    /// claims pass over it until the lease expires. nil: none (claimed when due by any server).
    /// Kept where the engine keeps its leases (PostgreSQL: in the row; SQLite: in memory).
    public var lease: MessageLease?

    /// Creates a record.
    public init(applicationID: Int64, code: String, transactionID: String, sendAtMS: Int64, categoryID: UInt32,
                targeting: TargetingRecord, spec: String, lease: MessageLease? = nil) {
        self.applicationID = applicationID
        self.code = code
        self.transactionID = transactionID
        self.sendAtMS = sendAtMS
        self.categoryID = categoryID
        self.targeting = targeting
        self.spec = spec
        self.lease = lease
    }
}

/// A stored message.
public struct MessageRecord: Sendable, Equatable {
    /// The store's id.
    public var id: Int64
    /// The owning application.
    public var applicationID: Int64
    /// The public code.
    public var code: String
    /// The idempotency key, or empty.
    public var transactionID: String
    /// Where it is in its life.
    public var status: MessageStatusRecord
    /// When to send, ms since 1970.
    public var sendAtMS: Int64
    /// The category, or 0.
    public var categoryID: UInt32
    /// Who receives it.
    public var targeting: TargetingRecord
    /// What to render (the service's JSON).
    public var spec: String
    /// The last hwid handed over by the fan-out; nil before the first batch.
    public var cursor: String?

    /// Creates a record.
    public init(id: Int64, applicationID: Int64, code: String, transactionID: String, status: MessageStatusRecord,
                sendAtMS: Int64, categoryID: UInt32, targeting: TargetingRecord, spec: String, cursor: String?) {
        self.id = id
        self.applicationID = applicationID
        self.code = code
        self.transactionID = transactionID
        self.status = status
        self.sendAtMS = sendAtMS
        self.categoryID = categoryID
        self.targeting = targeting
        self.spec = spec
        self.cursor = cursor
    }
}

/// A message as a list of messages shows it: what it is and its counters, without its content.
public struct MessageSummaryRecord: Sendable, Equatable {
    /// The store's id (the list's cursor).
    public var id: Int64
    /// The public code.
    public var code: String
    public var status: MessageStatusRecord
    /// When to send, ms since 1970.
    public var sendAtMS: Int64
    /// The category, or 0.
    public var categoryID: UInt32
    public var targeted: UInt64
    public var sent: UInt64
    public var failed: UInt64

    /// Creates a summary.
    public init(id: Int64, code: String, status: MessageStatusRecord, sendAtMS: Int64, categoryID: UInt32,
                targeted: UInt64, sent: UInt64, failed: UInt64) {
        self.id = id
        self.code = code
        self.status = status
        self.sendAtMS = sendAtMS
        self.categoryID = categoryID
        self.targeted = targeted
        self.sent = sent
        self.failed = failed
    }
}

/// A device selected as a target.
public struct TargetDevice: Sendable, Equatable {
    public var hwid: String
    public var pushToken: String
    public var language: String
    /// The badge the device shows, as Pushwire last set it.
    public var badge: Int64
    /// The platform's wire number (Pushwoosh codes: 1 iOS, 3 Android, …): which push service it
    /// is delivered through.
    public var deviceType: Int32

    /// Creates a target.
    public init(hwid: String, pushToken: String, language: String, badge: Int64, deviceType: Int32 = 1) {
        self.hwid = hwid
        self.pushToken = pushToken
        self.language = language
        self.badge = badge
        self.deviceType = deviceType
    }
}

/// An attempt record without a final outcome.
public struct OpenDeliveryRecord: Sendable, Equatable {
    public var deliveryID: UInt64
    public var hwid: String
    public var attempt: Int
    /// True when handed over without an outcome (a crash); false when waiting for a retry.
    public var handedOver: Bool
    /// The device's platform as stored now (0 when the device is gone), for the per-platform counts.
    public var deviceType: Int32

    /// Creates a record.
    public init(deliveryID: UInt64, hwid: String, attempt: Int, handedOver: Bool, deviceType: Int32 = 0) {
        self.deliveryID = deliveryID
        self.hwid = hwid
        self.attempt = attempt
        self.handedOver = handedOver
        self.deviceType = deviceType
    }
}

/// The outcome of one attempt record, as stored.
public struct DeliveryResultRecord: Sendable, Equatable {
    /// What became of it.
    public enum Result: Sendable, Equatable {
        /// Accepted by the gateway.
        case sent
        /// Failed for good; `invalidToken` counts it among invalid tokens, and `refusedToken` (the
        /// token sent, dead or invalid, and since when) marks the device so it is not targeted
        /// until it registers another token.
        case failed(reason: String, invalidToken: Bool, refusedToken: RefusedToken?)
        /// Waiting for a retry (a new attempt record).
        case retryPending(reason: String)
    }
    public var deliveryID: UInt64
    public var hwid: String
    public var result: Result

    /// Creates a result.
    public init(deliveryID: UInt64, hwid: String, result: Result) {
        self.deliveryID = deliveryID
        self.hwid = hwid
        self.result = result
    }
}

/// A new attempt record to hand over.
public struct NewDeliveryRecord: Sendable, Equatable {
    public var hwid: String
    /// 1 for the first attempt.
    public var attempt: Int
    /// The retry-pending record this attempt replaces, if any.
    public var replaces: UInt64?

    /// Creates a record.
    public init(hwid: String, attempt: Int, replaces: UInt64? = nil) {
        self.hwid = hwid
        self.attempt = attempt
        self.replaces = replaces
    }
}

/// One transaction of the fan-out: outcomes of the previous batch, the next batch's attempt
/// records, the cursor after it, badge changes, and whether the message is done.
public struct FanOutStep: Sendable, Equatable {
    public var messageID: Int64
    public var applicationID: Int64
    public var results: [DeliveryResultRecord]
    public var handOver: [NewDeliveryRecord]
    /// The new cursor (the last hwid of this batch), when the batch advanced it.
    public var cursor: String?
    /// How many more devices were selected.
    public var targetedIncrement: Int
    /// New badge values per hwid.
    public var badges: [(hwid: String, badge: Int64)]
    /// Marks the message done.
    public var finish: Bool
    /// The attempt records of this message's previous step that are still with the gateway
    /// (handed over, their outcomes not in `results`): exactly the ids that step returned, or
    /// empty. After this step the message's open records (what `openDeliveries` reports as
    /// handed over) are these and this step's new ones; every earlier record not given a failed
    /// or retry-pending outcome counts as sent. Empty when every earlier record has its outcome
    /// here or before.
    public var stillWithGateway: [UInt64]
    /// Moves a scheduled message to sending first; when it is no longer scheduled or sending
    /// (cancelled), the step writes nothing and hands nothing over.
    public var startsSending: Bool
    /// What this step adds to the message's counters per platform (device type): its targets
    /// and its results, split by the devices' platforms. Added to the per-platform counters;
    /// the totals come from `targetedIncrement` and `results` as before.
    public var platformCounts: [PlatformCountRecord]
    /// The lease the step is written under (`MessageStore.recordFanOutStep`); nil: none asked
    /// (one process alone, tools and tests).
    public var lease: MessageLease?
    /// The batch of the message this step belongs to (`FanOutBatchRecord`), by index; nil: the
    /// step is the whole message's.
    public var batch: Int?

    /// Creates a step.
    public init(messageID: Int64, applicationID: Int64, results: [DeliveryResultRecord] = [], handOver: [NewDeliveryRecord] = [],
                cursor: String? = nil, targetedIncrement: Int = 0, badges: [(hwid: String, badge: Int64)] = [], finish: Bool = false,
                stillWithGateway: [UInt64] = [], startsSending: Bool = false, platformCounts: [PlatformCountRecord] = [],
                lease: MessageLease? = nil, batch: Int? = nil) {
        self.batch = batch
        self.platformCounts = platformCounts
        self.lease = lease
        self.messageID = messageID
        self.applicationID = applicationID
        self.results = results
        self.handOver = handOver
        self.cursor = cursor
        self.targetedIncrement = targetedIncrement
        self.badges = badges
        self.finish = finish
        self.stillWithGateway = stillWithGateway
        self.startsSending = startsSending
    }

    public static func == (a: FanOutStep, b: FanOutStep) -> Bool {
        a.messageID == b.messageID && a.applicationID == b.applicationID && a.results == b.results && a.handOver == b.handOver
            && a.cursor == b.cursor && a.targetedIncrement == b.targetedIncrement && a.finish == b.finish && a.stillWithGateway == b.stillWithGateway
            && a.startsSending == b.startsSending && a.platformCounts == b.platformCounts && a.lease == b.lease && a.batch == b.batch
            && a.badges.map(\.hwid) == b.badges.map(\.hwid) && a.badges.map(\.badge) == b.badges.map(\.badge)
    }
}

/// An open or a button tap reported by a device.
public struct ActionRecord: Sendable, Equatable {
    /// 1 open, 2 button (the wire numbers of `ActionKind`).
    public var kind: Int64
    public var messageID: Int64
    public var hwid: String
    /// The button, for a tap; 0 for an open.
    public var buttonID: UInt32
    public var textInput: String

    /// Creates an action.
    public init(kind: Int64, messageID: Int64, hwid: String, buttonID: UInt32, textInput: String) {
        self.kind = kind
        self.messageID = messageID
        self.hwid = hwid
        self.buttonID = buttonID
        self.textInput = textInput
    }
}

/// A message's counters for the devices of one platform (device type), or what one fan-out step
/// adds to them.
public struct PlatformCountRecord: Sendable, Equatable, Hashable {
    /// The platform's wire number (Pushwoosh codes).
    public var deviceType: Int32
    public var targeted: UInt64
    public var sent: UInt64
    public var failed: UInt64
    /// Dead or invalid tokens, included in `failed`.
    public var invalidTokens: UInt64

    /// Creates counts.
    public init(deviceType: Int32, targeted: UInt64 = 0, sent: UInt64 = 0, failed: UInt64 = 0, invalidTokens: UInt64 = 0) {
        self.deviceType = deviceType
        self.targeted = targeted
        self.sent = sent
        self.failed = failed
        self.invalidTokens = invalidTokens
    }
}

/// The button taps recorded in one minute (`MessageStore.tapsPerMinute`).
public struct TapMinuteRecord: Sendable, Equatable {
    /// The minute's start, in seconds since 1970 (a multiple of 60).
    public var minute: Int64
    public var taps: UInt64

    /// Creates a minute's count.
    public init(minute: Int64, taps: UInt64) {
        self.minute = minute
        self.taps = taps
    }
}

/// What became of a message.
public struct MessageStatisticsRecord: Sendable, Equatable {
    public var targeted: UInt64 = 0
    public var sent: UInt64 = 0
    public var failed: UInt64 = 0
    public var invalidTokens: UInt64 = 0
    /// Failure counts by reason, in reason order.
    public var failures: [(reason: String, count: UInt64)] = []
    public var opened: UInt64 = 0
    /// Tap counts by button id.
    public var taps: [UInt32: UInt64] = [:]
    /// The counters per platform, in device type order.
    public var platforms: [PlatformCountRecord] = []

    /// Creates empty statistics.
    public init() {}

    public static func == (a: MessageStatisticsRecord, b: MessageStatisticsRecord) -> Bool {
        a.targeted == b.targeted && a.sent == b.sent && a.failed == b.failed && a.invalidTokens == b.invalidTokens
            && a.failures.map(\.reason) == b.failures.map(\.reason) && a.failures.map(\.count) == b.failures.map(\.count)
            && a.opened == b.opened && a.taps == b.taps && a.platforms == b.platforms
    }
}
