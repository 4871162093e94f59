/// Messages, their outbox, delivery attempt records, failure counts and taps: what the messages
/// service keeps durably. Kept apart from `PushwireStore` so that the registration engine and the
/// messaging engine can evolve (and be replaced) separately; every engine implements both. The
/// promises common to all requirements (durable acknowledgement, atomicity, read your writes,
/// async reads, `StoreError`s, no defaults) are `PushwireStore`'s.
///
/// The outbox is the messages themselves: a message is due when it is scheduled and its send
/// time has passed, or when it is left sending (a crash, a failed fan-out). Each delivery to a
/// device is an attempt record written *before* the notification is handed to a gateway; its
/// outcome is written after. A record that was handed over is never handed over again (at most
/// once per attempt record); after a crash, records without an outcome are closed as
/// `Interrupted` failures, never resent. A new attempt record is created only for a transient
/// (`retry`) outcome. Ids (of messages, of attempt records) are assigned by the store, unique,
/// and grow with creation order; nothing may assume they are consecutive.
public protocol MessageStore: Sendable {
    /// Creates the messages in one transaction, all or none, as `.scheduled` with no cursor. A
    /// message whose (application, non-empty transaction id) was already stored is not created
    /// again: the stored one (whatever its content and status) is returned in its place.
    /// - Returns: one record per message, in order.
    /// - Throws: `.conflict` when a code is taken (then none is created).
    func createMessages(_ messages: [NewMessageRecord]) async throws(StoreError) -> [MessageRecord]

    /// `createMessages` for a caller that is not in a task (the server's event loop): the same
    /// promise; `completion` is called exactly once, with the result once the transaction is
    /// durable (or failed), on any thread, and must be quick. The call itself never blocks.
    func createMessages(_ messages: [NewMessageRecord],
                        completion: @escaping @Sendable (Result<[MessageRecord], StoreError>) -> Void)

    /// The application's message with this code, or nil (also when another application owns it).
    func message(applicationID: Int64, code: String) async throws(StoreError) -> MessageRecord?

    /// The message by its id, or nil.
    func message(id: Int64) async throws(StoreError) -> MessageRecord?

    /// The messages with these ids that exist, by id, read in one snapshot (unknown ids are
    /// left out).
    func messages(ids: [Int64]) async throws(StoreError) -> [Int64: MessageRecord]

    /// The application's messages, newest first (by descending id, so creation order reversed),
    /// at most `limit`: those with an id below `beforeID` (keyset pagination: nil starts at the
    /// newest), each with its counters, read in one snapshot.
    func listMessages(applicationID: Int64, beforeID: Int64?, limit: Int) async throws(StoreError) -> [MessageSummaryRecord]

    /// Cancels a scheduled message (it becomes `.cancelled`; any other status is left as is).
    /// - Returns: the status it had before (`.scheduled` means it was cancelled now); nil when
    ///   the application has no such message.
    func cancelMessage(applicationID: Int64, code: String) async throws(StoreError) -> MessageStatusRecord?

    /// Messages to work on now, at most `limit`: those left `.sending` (but those cut into
    /// batches, `cutFanOut`: their batches are claimed instead) and the `.scheduled` ones, whose
    /// send time is at or before `nowMS`, by send time, then id (creation order). A message
    /// starts when its send time comes, so a sending one counts from then whatever clock started
    /// it (its lease, `claimDueMessages`, ends after its send time on any clock). One order for
    /// both, so that an engine may find them in one walk of its outbox, stopped by `limit`.
    func dueMessages(nowMS: Int64, limit: Int) async throws(StoreError) -> [MessageRecord]

    /// The ids of `dueMessages(nowMS:limit:)`, in the same order, without decoding the messages;
    /// with `includeSending` false the `.sending` ones are left out (a scheduler that runs them
    /// itself looks for those only now and then).
    func dueMessageIDs(nowMS: Int64, limit: Int, includeSending: Bool) async throws(StoreError) -> [Int64]

    /// The earliest send time later than `nowMS` of a `.scheduled` message, or nil when none is
    /// scheduled after `nowMS`.
    func nextScheduledSendTime(after nowMS: Int64) async throws(StoreError) -> Int64?

    /// Moves a scheduled message to sending (a sending one stays sending). With a `lease`, only
    /// when the message's lease is free, expired at `lease.nowMS` or `lease.owner`'s, which then
    /// holds it until `lease.untilMS`.
    /// - Returns: false when it is neither scheduled nor sending (cancelled, done, or no such
    ///   message), another owner holds its lease, or it was cut into batches (`cutFanOut`; it is
    ///   sent batch by batch): nothing changed.
    func startSending(messageID: Int64, lease: MessageLease?) async throws(StoreError) -> Bool

    /// Claims due messages for `lease.owner` until `lease.untilMS`: at most `limit`, in
    /// `dueMessageIDs`' order, among those whose lease is free, expired at `lease.nowMS`, or
    /// (sending ones) already the owner's (renewed). A message another owner holds is skipped,
    /// never waited for, and no message is claimed by two owners at once (two servers claiming
    /// together get disjoint sets). A scheduled message stays scheduled (its first fan-out step
    /// moves it to sending); with `includeSending` false the `.sending` ones are left out (those
    /// cut into batches always are).
    /// - Returns: the ids claimed, in order.
    func claimDueMessages(_ lease: MessageLease, limit: Int, includeSending: Bool) async throws(StoreError) -> [Int64]

    /// Extends `lease.owner`'s leases on these messages to `lease.untilMS`, even those that
    /// expired, as long as no other owner took them.
    /// - Returns: the ids still held (scheduled or sending, lease the owner's), ascending; the
    ///   others were lost, finished or never held.
    func renewLeases(_ lease: MessageLease, messageIDs: [Int64]) async throws(StoreError) -> [Int64]

    /// Gives up `owner`'s leases on these messages (a server that stops): any server may claim
    /// them at once. Leases of other owners are left alone.
    func releaseLeases(owner: String, messageIDs: [Int64]) async throws(StoreError)

    /// Whether this engine's fan-out batches (`cutFanOut`) are durable and shared by every server
    /// of the store, so that a large message is worth cutting into batches: true for a networked
    /// engine; false for one process alone, whose batches live in memory (its pipeline fans a
    /// message out whole, resumable after a crash from the message's own cursor).
    var sharesFanOutBatches: Bool { get }

    /// The hwids that end each run of `every` targets of the selection (as `targets` orders and
    /// filters them): the `every`-th, the 2·`every`-th, …, never the last target. Cutting the
    /// selection after each gives runs of `every` devices and a last one of at most `every`.
    func batchBounds(applicationID: Int64, _ targeting: TargetingRecord, every: Int) async throws(StoreError) -> [String]

    /// Cuts a message's fan-out into batches at `bounds` (ascending hwids, as `batchBounds`
    /// gives): batch 0 up to and including `bounds[0]`, …, the last one after the last bound
    /// (`bounds.count + 1` batches), each free for any server to claim. Only under `lease`, as a
    /// step that `startsSending`: the message moves to sending, and from then on it is no longer
    /// claimed as a whole (`claimDueMessages`, `dueMessages` leave it out) and its message lease
    /// is given up; its batches are its work. A message cut before stays as it is.
    /// - Returns: false when the message is neither scheduled nor sending, another owner holds
    ///   it, or it is sending without batches (a whole fan-out started): nothing changed.
    func cutFanOut(messageID: Int64, lease: MessageLease, bounds: [String]) async throws(StoreError) -> Bool

    /// Claims batches of messages that are sending, not done, whose lease is free or expired at
    /// `lease.nowMS`, for `lease.owner` until `lease.untilMS`: at most `limit`, oldest message
    /// first, then by index. A live lease — another owner's, or the owner's own (a batch it is
    /// fanning out; `renewBatchLeases` extends those) — is skipped, never waited for; no batch
    /// is claimed by two owners at once.
    /// - Returns: the batches claimed, in that order, each with its cursor.
    func claimFanOutBatches(_ lease: MessageLease, limit: Int) async throws(StoreError) -> [FanOutBatchRecord]

    /// Extends `lease.owner`'s leases on these batches (not done) to `lease.untilMS`, even those
    /// that expired, as long as no other owner took them.
    /// - Returns: the batches still held, ascending.
    func renewBatchLeases(_ lease: MessageLease, batches: [FanOutBatchID]) async throws(StoreError) -> [FanOutBatchID]

    /// Gives up `owner`'s leases on these batches (a server that stops): any server may claim
    /// them at once. Leases of other owners are left alone.
    func releaseBatchLeases(owner: String, batches: [FanOutBatchID]) async throws(StoreError)

    /// The batch's attempt records without a final outcome, by ascending id, as
    /// `openDeliveries(messageID:)` for a whole message: those its last steps handed over
    /// without an outcome, and the message's retry-pending ones whose hwid lies in the batch.
    /// - Throws: `.notFound` when the message has no such batch.
    func openDeliveries(batch: FanOutBatchID) async throws(StoreError) -> [OpenDeliveryRecord]

    /// The next `limit` devices the targeting selects, in hwid byte order after `afterHWID`
    /// (keyset pagination: nil starts at the beginning). Devices without a push token, or whose
    /// push token was refused (a failed outcome's `refusedToken`) and not replaced since,
    /// are skipped. Selectors combine with AND (`TargetingRecord`): hwids, user ids and platforms
    /// match any of theirs; a tag condition's string value matches a string tag or an element of
    /// a list tag, an int value an int or date tag, a bool a bool tag; `gte`, `lte` and
    /// `between` (inclusive) compare int and date tags; a condition that cannot hold selects none.
    func targets(applicationID: Int64, _ targeting: TargetingRecord, afterHWID: String?, limit: Int) async throws(StoreError) -> [TargetDevice]

    /// The first `limit` targets of each message (as `targets` with no cursor), read in one
    /// snapshot; one list per message, in order.
    func firstTargets(of messages: [MessageRecord], limit: Int) async throws(StoreError) -> [[TargetDevice]]

    /// One device as a target whatever its state (its token may be empty or dead), or nil.
    func target(applicationID: Int64, hwid: String) async throws(StoreError) -> TargetDevice?

    /// The refusal of the device's current push token (`RefusedToken`, recorded by a fan-out
    /// step's failed outcome), or nil: no such device, no push token, or a token no push service
    /// refused (a device that registered another token since is not refused).
    func tokenRefusal(applicationID: Int64, hwid: String) async throws(StoreError) -> RefusedToken?

    /// The hwids among `hwids` that the application knows (registered at least once), as
    /// stored, each once: compare them by their bytes (a `Set<String>` would take canonically
    /// equal hwids, two devices, for one).
    func knownDevices(applicationID: Int64, hwids: [String]) async throws(StoreError) -> [String]

    /// The hwids among `hwids` that the application holds with an empty push token (registered
    /// without one, or unregistered), as stored, each once, compared by their bytes. Such a
    /// device is never targeted until it registers with a token.
    func tokenlessDevices(applicationID: Int64, hwids: [String]) async throws(StoreError) -> [String]

    /// The message's attempt records that have no final outcome, by ascending id: those handed
    /// over without an outcome (`handedOver`: its last step's records and `stillWithGateway`)
    /// and those waiting for a retry (retry-pending, not yet replaced); each with its device's
    /// platform as stored now (0 when the device is gone).
    func openDeliveries(messageID: Int64) async throws(StoreError) -> [OpenDeliveryRecord]

    /// Records the outcomes of delivered attempts and hands over new attempts, in one
    /// transaction: counters, failure counts by reason, dead tokens, badges, the cursor, the
    /// new attempt records (and the retry-pending records they replace), the status. With
    /// `startsSending`, a message no longer scheduled or sending makes the step write nothing.
    /// With a `lease`, the step is written only under it: a step that `startsSending` takes
    /// the lease when it is free, expired or the owner's (another owner's live lease makes it
    /// write nothing, as for a cancelled message); any other step needs the lease to be the
    /// owner's (expired or not). Either renews it to `lease.untilMS`.
    /// - Returns: the new attempt records' ids, in the order of `step.handOver`; none when the
    ///   step `startsSending` a message that was cancelled meanwhile or that another owner holds.
    /// A step of a batch (`step.batch`) is fenced by the batch's lease instead (the lease must
    /// be the owner's, expired or not; it may not `startsSending`): its cursor and open records
    /// are the batch's, its counts are added to the message's, and `finish` closes the batch —
    /// and the message with it when no other batch is left open.
    /// - Throws: `.invalidChange` when `stillWithGateway` is not a previous step's ids, or a
    ///   batch step has no lease or `startsSending`; `.leaseLost` when a step that does not
    ///   start the message is not under its lease (another server took it or its batch over):
    ///   nothing written; `.notFound` when the batch does not exist.
    func recordFanOutStep(_ step: FanOutStep) async throws(StoreError) -> [UInt64]

    /// Several steps in one transaction (small messages fanned out together), applied in order:
    /// all of them or, when any fails (`.leaseLost` included), none (nothing of any step is
    /// written); a step that `startsSending` a message held by another owner writes nothing
    /// and the others are written.
    /// - Returns: each step's new attempt record ids, in order (as `recordFanOutStep`).
    func recordFanOutSteps(_ steps: [FanOutStep]) async throws(StoreError) -> [[UInt64]]

    /// Records an open or a button tap. Idempotent: the same (message, hwid, kind, button) is
    /// recorded once, whatever the text input.
    /// - Returns: false when the same action was already recorded (nothing changed).
    func recordAction(_ action: ActionRecord) async throws(StoreError) -> Bool

    /// The message's counters, failures by reason (byte order) and taps, read in one snapshot;
    /// all zero for an unknown message.
    func statistics(messageID: Int64) async throws(StoreError) -> MessageStatisticsRecord

    /// The message's button taps (opens not included) per minute of the time each was recorded,
    /// oldest first, minutes without taps left out, at most the `latest` most recent minutes.
    func tapsPerMinute(messageID: Int64, latest: Int) async throws(StoreError) -> [TapMinuteRecord]
}
