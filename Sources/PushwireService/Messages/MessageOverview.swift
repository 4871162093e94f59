import PushwireStore
import PushwireWire

/// The fields a ListMessages row (`MessageSummary`) and GetMessageDetails' answer share, under
/// the same names in both generated messages: what a message is and how far it got.
protocol MessageOverviewFields {
    var messageCode: String { get set }
    var status: MessageStatus { get set }
    var sendAtMS: Int64 { get set }
    var iosCategoryID: UInt32 { get set }
    var targeted: UInt64 { get set }
    var sent: UInt64 { get set }
    var failed: UInt64 { get set }
}

extension MessageSummary: MessageOverviewFields {}
extension GetMessageDetailsResponse: MessageOverviewFields {}

extension WireConversions {
    /// Writes `record`'s code, status, send time, category and counts into `message`: the one
    /// place a list row and a message's details get them, so that the two pages agree.
    static func overview<Message: MessageOverviewFields>(_ record: MessageSummaryRecord, into message: inout Message) {
        message.messageCode = record.code
        message.status = MessageStatus(rawValue: Int32(record.status.rawValue))
        message.sendAtMS = record.sendAtMS
        message.iosCategoryID = record.categoryID
        message.targeted = record.targeted
        message.sent = record.sent
        message.failed = record.failed
    }
}
