/// The limits of the Messages methods (Protos/pushwire/v1/messages.proto), defined once.
enum MessageLimits {
    /// Notifications per CreateMessage.
    static let notificationsPerRequest = 1...100
    /// Explicit hwids, and user ids, per notification.
    static let maxTargets = 1000
    /// Tag conditions per notification, and values per IN condition.
    static let maxConditions = 16
    static let maxConditionValues = 100
    /// How far in the past a send time may be (clock skew between caller and server), in ms.
    static let pastToleranceMS: Int64 = 60_000
    /// How far ahead a message may be scheduled, in ms: 366 days. Without a bound a send time such
    /// as INT64_MAX is accepted and the message stays scheduled (and stored) for ever.
    static let maxScheduleAheadMS: Int64 = 366 * 24 * 3600 * 1000
    /// Short strings: sound, thread id, transaction id; and the text input of a tap.
    static let maxShortStringBytes = 256
    static let maxTextInputBytes = 1024
    /// ListMessages' page sizes: 0 asks for the default.
    static let defaultPageSize = 50
    static let maxPageSize = 100
    /// CountTargets stops counting here (and says `at_least`): the count is a preview, and its
    /// cost grows with the devices it walks.
    static let maxCountedTargets = 1_000_000
    /// Devices read per store call while counting.
    static let countBatch = 5000
}
