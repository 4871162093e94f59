/// A server's claim on one message of the outbox, so that several servers sharing a store never
/// fan a message out together. The holder renews it while it works; a server that dies stops
/// renewing, and once `untilMS` has passed another server may take the message over.
///
/// Safety does not rest on clocks: every fan-out step carries the lease, and a step is written
/// only while the message's lease names its owner (the check is in the step's own transaction,
/// under the message row's lock), so that once another owner took the message, the old holder
/// can write no more records and hand nothing more over. Clocks only decide *when* a lease
/// counts as expired (each caller's `nowMS`; servers' clocks should agree well within a lease).
public struct MessageLease: Sendable, Equatable, Hashable {
    /// Who holds it: one id per server process, unique (e.g. host, pid and random bits).
    public var owner: String
    /// The caller's clock, ms since 1970: another owner's lease with `untilMS` before it has
    /// expired and may be taken.
    public var nowMS: Int64
    /// Until when the lease is held once taken or renewed, ms since 1970.
    public var untilMS: Int64

    /// A lease for `owner` from `nowMS` for `durationMS`.
    public init(owner: String, nowMS: Int64, durationMS: Int64) {
        self.owner = owner
        self.nowMS = nowMS
        self.untilMS = nowMS + durationMS
    }
}
