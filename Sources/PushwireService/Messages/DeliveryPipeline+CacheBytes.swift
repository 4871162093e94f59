import PushwireStore

/// What the pipeline's in-memory hand-over caches cost, and the one budget they share.
///
/// Messages created by this process reach the scheduler in memory: their records in `fresh` and
/// then the scheduler's `known`, the decoded specs of small ones in `createdSpecs`. Those caches
/// were bounded by count (4 096 and 8 192 entries), which holds a few MB of ordinary messages
/// (300 B of spec JSON) but hundreds of MB of large ones: a 185-language notification is 36 KB
/// of JSON and about twice that decoded, and when CreateMessage outpaces the fan-out every cache
/// fills with them (docs/journal/2026-12-02-pipeline-cache-bytes.md). Past the budget a created
/// message is left in the outbox, where the scheduler finds it anyway (`freshOverflowed`), and a
/// small one's spec is decoded again from its stored JSON: slower, never lost.
extension DeliveryPipeline {
    /// The default of `Configuration.maxCachedMessageBytes`: 32 MiB.
    public static let defaultMaxCachedMessageBytes = 32 << 20

    /// A record's approximate size in memory: its strings (the spec JSON dominates) and a fixed
    /// allowance for the struct, the targeting record and the dictionary slot.
    static func cachedCost(of message: MessageRecord) -> Int {
        // By index: each hwid's length is read where it lies (`reduce` retained and released
        // every hwid, strings another thread made, twice per message).
        var bytes = message.spec.utf8.count + message.code.utf8.count + message.transactionID.utf8.count + 256
        let hwids = message.targeting.hwids
        for index in hwids.indices { bytes += hwids[index].utf8.count + 16 }
        return bytes
    }

    /// A created message handed to the scheduler in memory, with its `cachedCost(of:)`,
    /// computed once when it is handed over and carried until it is claimed.
    struct CachedMessage {
        var record: MessageRecord
        var cost: Int
    }

    /// A decoded spec's approximate size, from its record: strings and dictionaries of the
    /// texts take about twice the JSON they are written as.
    static func cachedSpecCost(of message: MessageRecord) -> Int {
        2 * message.spec.utf8.count + 512
    }

    /// Bytes the three caches hold now (approximate, as the costs above), for /metrics.
    public var cachedMessageBytes: Int {
        state.withLock { $0.freshBytes + $0.createdSpecBytes + $0.knownBytes }
    }
}

extension DeliveryPipeline.State {
    /// Whether `cost` more bytes fit in the caches' budget.
    func cacheFits(_ cost: Int, budget: Int) -> Bool {
        freshBytes + createdSpecBytes + knownBytes + cost <= budget
    }
}
