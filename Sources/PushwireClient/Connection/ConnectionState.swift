import PushwireWire

/// What a waiting call or ping is resumed with: the response body, or the error.
typealias CallContinuation = UnsafeContinuation<[UInt8], any Error>

/// A call or ping waiting for its answer.
struct PendingCall: Sendable {
    /// Resumed exactly once, by whoever removes this entry from `ConnectionState.pending`.
    var continuation: CallContinuation
    /// When the call fails locally with DEADLINE_EXCEEDED; `nil` for none.
    var deadline: ContinuousClock.Instant?
    /// A ping waits for a Pong with its id as payload; it is never cancelled on the wire.
    var isPing: Bool
}

/// The state of one connection, always accessed under its `Mutex`: a small state machine
/// (open → going away → closed) plus the pending calls and the output buffer.
struct ConnectionState: Sendable {
    /// Calls and pings waiting for an answer, by call id (pings by their payload).
    var pending: [UInt32: PendingCall] = [:]
    /// How many entries of `pending` are calls (not pings): checked against the server's limit.
    var callsInFlight = 0
    /// Frames waiting to be written; whoever finds `flushing` false writes them.
    var output: [UInt8] = []
    /// An empty buffer with capacity, swapped with `output` by the flusher to avoid reallocating.
    var spare: [UInt8] = []
    /// A task is writing `output` to the socket; others only append.
    var flushing = false
    /// The server's limits (updated if it sends Settings again).
    var settings: ServerSettings
    /// Set by GoAway: no new calls; the error they fail with.
    var goAway: RPCError?
    /// Set when the connection is lost or closed: every call fails with it.
    var closed: RPCError?
    /// The reader thread has stopped reading the socket.
    var readerExited = false
    /// The socket was closed: exactly once, with the lock held, only after the reader exited
    /// and while no write is in progress, so a reused descriptor number is never touched.
    var fdClosed = false
    /// A lower bound of the pending deadlines (may be stale after calls finish).
    var earliestDeadline: ContinuousClock.Instant?
    /// Called once when the connection closes (the pool uses it to reconnect).
    var onClose: (@Sendable () -> Void)?

    init(settings: ServerSettings) {
        self.settings = settings
        output.reserveCapacity(16 * 1024)
        spare.reserveCapacity(16 * 1024)
    }

    /// Removes every pending call and ping, for failing them all with one error.
    mutating func takeAllPending() -> [CallContinuation] {
        let all = pending.values.map(\.continuation)
        pending.removeAll()
        callsInFlight = 0
        return all
    }
}
