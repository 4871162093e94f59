import PushwireDelivery

/// The outcomes a connection's thread settled in one loop round, handed to their batches together
/// at the round's end: one `BatchCollector.complete` (a lock and a window release) per run of
/// answers from the same batch instead of per notification. Jobs of one batch go to a connection
/// together and are answered mostly in order, so a round's answers form few runs.
///
/// Used on one thread only.
struct SettledJobs {
    /// One settled job.
    struct Entry {
        let batch: BatchCollector
        let index: Int
        let outcome: DeliveryOutcome
    }

    private var entries: [Entry] = []

    /// Whether nothing is waiting to be handed over.
    var isEmpty: Bool { entries.isEmpty }

    /// Records `job`'s final outcome; it reaches the batch at the next `handOver`.
    mutating func add(_ job: APNsJob, _ outcome: DeliveryOutcome) {
        entries.append(Entry(batch: job.batch, index: job.index, outcome: outcome))
    }

    /// Hands everything recorded to the batches, run by run, and empties the list.
    mutating func handOver() {
        var start = 0
        while start < entries.count {
            let batch = entries[start].batch
            var end = start + 1
            while end < entries.count && entries[end].batch === batch { end += 1 }
            batch.complete(entries[start..<end])
            start = end
        }
        entries.removeAll(keepingCapacity: true)
    }
}
