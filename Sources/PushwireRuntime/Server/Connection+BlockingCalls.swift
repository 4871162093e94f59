import PushwireWire

/// A blocking call (or a large request) waiting in its connection for a place on the server's
/// blocking threads. Loop thread only.
final class QueuedCall {
    let callID: UInt32
    let call: InFlightCall
    /// What the call's request is charged to the connection while it waits.
    let charge: Int
    /// Runs the call's handler on a pool thread; its outcome goes to the completion.
    let start: @Sendable (@escaping @Sendable (CallOutcome) -> Void) -> Void
    /// Whether it runs on the large-request pool (a large request's checks) rather than the
    /// blocking one (a store read).
    let isLargeRequest: Bool
    /// Set when a Cancel or deadline dropped the call before it started.
    var isReleased = false

    init(callID: UInt32, call: InFlightCall, charge: Int, isLargeRequest: Bool,
         start: @escaping @Sendable (@escaping @Sendable (CallOutcome) -> Void) -> Void) {
        self.callID = callID
        self.call = call
        self.charge = charge
        self.isLargeRequest = isLargeRequest
        self.start = start
    }
}

/// A connection's blocking calls: each waits in the connection until it may start, then runs on
/// the server's `BlockingPool` in this connection's lane.
///
/// A call starts when fewer than `maxBlockingCallsPerConnection` of the connection's calls are on
/// the pool and the connection's held bytes leave room for its answer's reservation under the
/// byte budget (or when nothing else of the connection is held, so that it always progresses).
/// A call cancelled or past its deadline while it waits is dropped at once, and one that was
/// on the pool but had not started is skipped there: neither runs its handler.
extension Connection {
    /// What a call's request costs besides its message bytes (the call's records, its context,
    /// the metadata), charged to the byte budget with them.
    static let callOverheadBytes = 512
    /// Reserved in the byte budget for the answer of each blocking call running, whose size is
    /// known only once it is made.
    static let answerReservationBytes = 64 * 1024

    /// Tracks the call, charges its request and queues it for the blocking pool, or with
    /// `isLargeRequest` for the large-request pool.
    func queueBlocking(
        _ handler: @escaping RegisteredMethod.OffLoopHandler, callID: UInt32, request: Request, deadline: UInt64?, timeoutNanos: UInt64,
        isLargeRequest: Bool = false
    ) {
        let call = InFlightCall()
        track(callID: callID, call: call, deadline: deadline, timeoutNanos: timeoutNanos)
        let context = RequestContext(
            callID: callID, method: request.method, metadata: request.metadata, peer: peer,
            deadlineNanos: deadline, cancellation: call.cancellation)
        let message = request.message
        let charge = message.count + Self.callOverheadBytes
        heldBytes += charge
        notePressure()
        let queued = QueuedCall(callID: callID, call: call, charge: charge, isLargeRequest: isLargeRequest) { complete in
            handler(context, message, complete)
        }
        blockingWaiting.append(queued)
        queuedByCallID[callID] = queued
        // Started once the read batch is decoded (processFrames), not now: a Cancel in the same
        // batch (a GetTags + Cancel loop) then drops the call before any thread can take it.
    }

    /// Hands waiting calls to the pool while they fit (see the type's comment).
    func startQueuedCalls() {
        guard case .open = state else { return }
        let configuration = shared.configuration
        while blockingRunning < configuration.maxBlockingCallsPerConnection, let next = firstWaiting() {
            let outputBytes = output.count - outputStart
            if blockingRunning > 0 || outputBytes > 0 {
                guard outputBytes + heldBytes + Self.answerReservationBytes <= configuration.maxOutputBufferBytes else { return }
            }
            // Over the server's total, only small connections start work; the tick retries.
            if mustWaitForServer {
                pausedForServer = true
                if !readingPaused { pauseReading() }
                return
            }
            blockingWaiting[blockingWaitingHead] = nil
            blockingWaitingHead += 1
            queuedByCallID[next.callID] = nil
            blockingRunning += 1
            heldBytes += Self.answerReservationBytes
            notePressure()
            submit(next)
        }
        if blockingWaitingHead == blockingWaiting.count {
            blockingWaiting.removeAll(keepingCapacity: blockingWaiting.capacity <= 64)
            blockingWaitingHead = 0
            releasedWaitingCount = 0
        } else if blockingWaitingHead >= 64, blockingWaitingHead * 2 >= blockingWaiting.count {
            // A queue that never empties (calls keep coming) must not keep its spent front.
            blockingWaiting.removeFirst(blockingWaitingHead)
            blockingWaitingHead = 0
        }
    }

    /// The oldest waiting call not yet released, left in place at `blockingWaitingHead`;
    /// released entries before it are passed over.
    private func firstWaiting() -> QueuedCall? {
        while blockingWaitingHead < blockingWaiting.count {
            guard let candidate = blockingWaiting[blockingWaitingHead], !candidate.isReleased else {
                if blockingWaiting[blockingWaitingHead] != nil { releasedWaitingCount -= 1 }
                blockingWaiting[blockingWaitingHead] = nil
                blockingWaitingHead += 1
                continue
            }
            return candidate
        }
        return nil
    }

    private func submit(_ queued: QueuedCall) {
        let lane: BlockingPool.Lane
        let pool = queued.isLargeRequest ? shared.largeRequestPool : shared.blockingPool
        if let existing = queued.isLargeRequest ? largeRequestLane : self.lane {
            lane = existing
        } else {
            lane = BlockingPool.Lane()
            if queued.isLargeRequest { largeRequestLane = lane } else { self.lane = lane }
        }
        let loop = owner.loop
        let call = queued.call
        let callID = queued.callID
        let start = queued.start
        let release = queued.charge + Self.answerReservationBytes
        let shared = self.shared
        pool.submit({ [self] in
            if call.cancellation.isSet {
                // Answered (CANCELLED, DEADLINE_EXCEEDED) or its connection closed while it
                // waited for a thread: the result would be dropped, so do none of the work.
                shared.blockingCallsSkipped.add(1, ordering: .relaxed)
                loop.execute {
                    self.heldBytes -= release
                    self.blockingRunning -= 1
                    self.budgetChanged()
                }
                return
            }
            start { outcome in
                loop.execute {
                    self.heldBytes -= release
                    self.finish(callID: callID, call: call, status: outcome.status, message: outcome.message, body: outcome.body)
                    self.scheduleFlush()
                    self.budgetChanged()
                }
            }
            // The thread is free again; the call may still be waiting for its answer (a large
            // request's write waits for the group commit), which its completion reports.
            loop.execute {
                self.blockingRunning -= 1
                self.budgetChanged()
            }
        }, to: lane)
    }

    /// Drops waiting call `callID`, answered before it started.
    func releaseQueuedCall(_ callID: UInt32) {
        guard let queued = queuedByCallID.removeValue(forKey: callID) else { return }
        queued.isReleased = true
        heldBytes -= queued.charge
        releasedWaitingCount += 1
        // Released entries are passed over at the front; a client that queues and cancels
        // without end must not grow the array, so compact once they are half of it.
        let waiting = blockingWaiting.count - blockingWaitingHead
        if releasedWaitingCount >= 64, releasedWaitingCount * 2 >= waiting {
            blockingWaiting = blockingWaiting[blockingWaitingHead...].filter { $0.map { !$0.isReleased } ?? false }
            blockingWaitingHead = 0
            releasedWaitingCount = 0
        }
        budgetChanged()
    }

    /// Forgets every waiting call (the connection is closing; their calls are cancelled).
    func dropQueuedCalls() {
        blockingWaiting = []
        blockingWaitingHead = 0
        releasedWaitingCount = 0
        queuedByCallID = [:]
    }
}
