/// Which part of a message's fan-out a batch is: the message and the batch's position in it
/// (0 first, in hwid order).
public struct FanOutBatchID: Sendable, Hashable, Comparable {
    public var messageID: Int64
    public var index: Int

    /// Creates an id.
    public init(messageID: Int64, index: Int) {
        self.messageID = messageID
        self.index = index
    }

    public static func < (a: FanOutBatchID, b: FanOutBatchID) -> Bool { (a.messageID, a.index) < (b.messageID, b.index) }
}

/// One batch of a large message's fan-out, shared between servers: a keyset range of the
/// message's target selection — the targets after `afterHWID` up to and including
/// `throughHWID` (hwid byte order) — fanned out by whichever server holds its lease
/// (`MessageStore.claimFanOutBatches`). Its steps (`FanOutStep.batch`) add to the message's
/// counters, so the message's counts are the sum of its batches'; the message is done when its
/// last batch is.
public struct FanOutBatchRecord: Sendable, Equatable {
    public var id: FanOutBatchID
    /// The batch starts after this hwid; nil: at the first target.
    public var afterHWID: String?
    /// The batch ends with this hwid, included; nil: with the last target.
    public var throughHWID: String?
    /// The last hwid handed over by the batch's steps, nil before its first: a server taking
    /// the batch over continues after it.
    public var cursor: String?
    /// Its last step was written (`FanOutStep.finish`).
    public var done: Bool

    /// Creates a record.
    public init(id: FanOutBatchID, afterHWID: String?, throughHWID: String?, cursor: String? = nil, done: Bool = false) {
        self.id = id
        self.afterHWID = afterHWID
        self.throughHWID = throughHWID
        self.cursor = cursor
        self.done = done
    }

    /// Where the batch's next read of targets starts: after its cursor, else after its start.
    public var resumeAfter: String? { cursor ?? afterHWID }

    /// Whether `hwid` lies within the batch's upper bound (byte order, as the stores compare).
    public func includes(_ hwid: String) -> Bool {
        guard let throughHWID else { return true }
        return !throughHWID.utf8.lexicographicallyPrecedes(hwid.utf8)
    }
}
