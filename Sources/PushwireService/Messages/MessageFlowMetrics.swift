import Synchronization

/// Messages entering each status and devices fanned out, counted by this server where its
/// pipeline moves them, for `GET /metrics` (`pushwire_messages_total`,
/// `pushwire_fanout_targets_total`).
///
/// Counted at the transitions rather than read from the store at scrape time: a scrape runs on
/// an event loop and must not wait for a store read (on SQLite a count of the messages table
/// grows with its history, on PostgreSQL it is a round trip), and with several servers on one
/// PostgreSQL database each would report the whole database's figure. Counters per server sum
/// correctly across servers, and `rate()` of them is what a dashboard plots; the messages
/// waiting in each status now are `GetMessageDetails`' business, not a scrape's.
public final class MessageFlowMetrics: Sendable {
    /// The statuses counted, in slot order.
    static let statuses = ["scheduled", "sending", "done", "cancelled"]
    enum Status: Int {
        case scheduled, sending, done, cancelled
    }

    // One atomic per status: a transition is counted once per message (or per batch of
    // targets), far from the per-call hot path, so striping would buy nothing.
    private let scheduled = Atomic<UInt64>(0)
    private let sending = Atomic<UInt64>(0)
    private let done = Atomic<UInt64>(0)
    private let cancelled = Atomic<UInt64>(0)
    private let targets = Atomic<UInt64>(0)

    /// Zero counters.
    public init() {}

    /// Counts `count` messages that entered `status`.
    func entered(_ status: Status, _ count: Int = 1) {
        guard count > 0 else { return }
        let amount = UInt64(count)
        switch status {
        case .scheduled: scheduled.wrappingAdd(amount, ordering: .relaxed)
        case .sending: sending.wrappingAdd(amount, ordering: .relaxed)
        case .done: done.wrappingAdd(amount, ordering: .relaxed)
        case .cancelled: cancelled.wrappingAdd(amount, ordering: .relaxed)
        }
    }

    /// Counts devices read as targets of a message and handed to the fan-out (first attempts).
    func fannedOut(_ count: Int) {
        if count > 0 { targets.wrappingAdd(UInt64(count), ordering: .relaxed) }
    }

    /// Messages that entered each status, in `statuses` order.
    public var transitions: [(status: String, count: UInt64)] {
        [("scheduled", scheduled.load(ordering: .relaxed)), ("sending", sending.load(ordering: .relaxed)),
         ("done", done.load(ordering: .relaxed)), ("cancelled", cancelled.load(ordering: .relaxed))]
    }

    /// Devices fanned out so far.
    public var targetsFannedOut: UInt64 { targets.load(ordering: .relaxed) }
}
