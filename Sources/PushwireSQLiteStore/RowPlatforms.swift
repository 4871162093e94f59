import PushwireStore
import Synchronization

/// Which messages' rows count all of one platform, as this process flagged them.
///
/// A message's per-platform counters (GetMessageDetails) are kept in one of two ways. Nearly
/// every message's devices are of one platform: then `messages.platform_device_type` names it
/// and the row's own counters are that platform's, with nothing in `message_platforms` (a row
/// of that table upserted twice a small message, handed over and then sent, cost 3.5 % of a
/// CreateMessage's instructions). Otherwise the column is -1 and `message_platforms` holds
/// every platform's counters. NULL: no step counted anything yet.
///
/// The column is set only from NULL, by the first step of a message (`startsSending`) whose
/// counts are all of one platform; a later step keeps it only when its counts are all of the
/// same platform. Deciding that needs the row's platform: this table remembers the messages
/// this process flagged, so that a step reads nothing more. A message it does not know (after a
/// restart, or flagged by a job that was rolled back) is treated as possibly flagged: its step
/// first moves the row's counts into `message_platforms` (`unflag`), which
/// is right whatever the column holds. So an entry may be missing but never wrong — an entry is
/// added only after an UPDATE that set the column from NULL (a rolled-back job leaves the column
/// NULL, which a step of the same platform then sets again), and removed before a step that
/// could change it.
final class RowPlatforms: Sendable {
    private let flagged = Mutex<[Int64: Int32]>([:])

    /// The most messages remembered: past it the table starts again (forgotten messages take
    /// the slower, always-right path). Entries go when their message finishes.
    static let capacity = 1 << 16

    func platform(of messageID: Int64) -> Int32? { flagged.withLock { $0[messageID] } }

    func remember(_ messageID: Int64, _ platform: Int32) {
        flagged.withLock { flagged in
            if flagged.count >= RowPlatforms.capacity { flagged.removeAll(keepingCapacity: true) }
            flagged[messageID] = platform
        }
    }

    func forget(_ messageID: Int64) { _ = flagged.withLock { $0.removeValue(forKey: messageID) } }
}

/// What a step counts per platform, against what it adds to its message's totals.
enum StepPlatforms: Equatable {
    /// No per-platform counts and nothing added to the totals.
    case nothing
    /// Every count of one platform, adding up to the step's totals.
    case one(Int32)
    /// Anything else: several platforms, or counts that are not the totals.
    case mixed

    init(_ step: FanOutStep, _ outcomes: FanOutOutcomeCounts) {
        let counts = step.platformCounts
        guard let platform = counts.first?.deviceType else {
            let nothing = step.targetedIncrement == 0 && outcomes.sent == 0 && outcomes.failed == 0 && outcomes.invalidTokens == 0
            self = nothing ? .nothing : .mixed
            return
        }
        // Wrapping sums: counts that overflow are not the totals anyway.
        var (targeted, sent, failed, invalid): (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        for index in counts.indices {
            guard counts[index].deviceType == platform else { self = .mixed; return }
            targeted &+= counts[index].targeted
            sent &+= counts[index].sent
            failed &+= counts[index].failed
            invalid &+= counts[index].invalidTokens
        }
        let same = targeted == UInt64(clamping: step.targetedIncrement) && sent == UInt64(clamping: outcomes.sent)
            && failed == UInt64(clamping: outcomes.failed) && invalid == UInt64(clamping: outcomes.invalidTokens)
        self = same && step.targetedIncrement >= 0 ? .one(platform) : .mixed
    }
}

extension RowPlatforms {
    /// What a step's UPDATE writes to `messages.platform_device_type`: nil leaves it as it is
    /// (the step counts nothing), -1 (its counts go to `message_platforms`), or a platform (its
    /// counts are the row's). `onlyFromNull`: a first step's try at flagging its message, which
    /// holds only if no step counted anything before; when it does not, the caller calls
    /// `unflag` and writes -1. A step that may not count in the row has the row's counts moved
    /// to the table here first.
    func column(for step: FanOutStep, _ platforms: StepPlatforms,
                on connection: SQLiteConnection) throws(SQLiteError) -> (value: Int64?, onlyFromNull: Bool) {
        switch platforms {
        case .nothing:
            return (nil, false)
        case .one(let platform):
            let known = self.platform(of: step.messageID)
            if known == platform { return (Int64(platform), false) }
            if known == nil, step.startsSending, step.batch == nil { return (Int64(platform), true) }
        case .mixed:
            break
        }
        try unflag(step.messageID, on: connection)
        return (-1, false)
    }

    /// Moves the counters of a row flagged with one platform into `message_platforms` and marks
    /// the row -1; nothing when it is not flagged.
    func unflag(_ messageID: Int64, on connection: SQLiteConnection) throws(SQLiteError) {
        forget(messageID)
        // A flagged row has nothing in the table (it is flagged only from NULL): a plain INSERT.
        try connection.statement("""
            INSERT INTO message_platforms (message_id, device_type, targeted, sent, failed, invalid_tokens)
            SELECT id, platform_device_type, targeted, sent, failed, invalid_tokens FROM messages
            WHERE id = ?1 AND platform_device_type >= 0
            """).bind(.int(messageID)).run()
        if connection.changes > 0 {
            try connection.statement("UPDATE messages SET platform_device_type = -1 WHERE id = ?1").bind(.int(messageID)).run()
        }
    }

    /// After a step's UPDATE wrote `value` (`column`) to its message's row.
    func wrote(_ value: Int64?, _ step: FanOutStep) {
        if step.finish && step.batch == nil {
            forget(step.messageID)
        } else if let value, value >= 0 {
            remember(step.messageID, Int32(truncatingIfNeeded: value))
        }
    }
}
