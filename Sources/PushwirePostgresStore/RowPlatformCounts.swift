import PushwireStore

/// One platform's counters in the message row (`PostgresSchema` version 9): `messages.
/// platform_device_type` is the platform whose counters `platform_targeted`, `platform_sent`,
/// `platform_failed` and `platform_invalid_tokens` hold (NULL until a step counts one); every
/// other platform's are in `message_platforms`, and a message's counters for a platform are the
/// sum of both. A message's devices are nearly always of one platform, so its steps add to
/// counters in the row they already update instead of an upsert of `message_platforms` each
/// (`FanOutStepBatch.updateSQL`); steps written otherwise may still use the table.
extension PlatformCountRecord {
    /// The sum of `counts` when they all name one platform (a step's counts nearly always do),
    /// which the step's UPDATE of its message row can add there; nil when they name none or several.
    static func onePlatform(_ counts: [PlatformCountRecord]) -> PlatformCountRecord? {
        guard var sum = counts.first else { return nil }
        for index in counts.indices.dropFirst() {
            guard counts[index].deviceType == sum.deviceType else { return nil }
            sum.targeted += counts[index].targeted
            sum.sent += counts[index].sent
            sum.failed += counts[index].failed
            sum.invalidTokens += counts[index].invalidTokens
        }
        return sum
    }
}
