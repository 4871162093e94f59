import PushwireWire

/// A call whose work waits in its connection until the connection's byte budget leaves room for
/// its answer: a blocking call or a large request (for a place on the server's blocking or
/// large-request threads), or a call whose work starts on the loop (an async handler's task, a
/// callback) once the connection is over its budget. Loop thread only.
final class QueuedCall {
    /// Where the call's work runs once it starts.
    enum Placement {
        /// On the blocking threads (a store read).
        case blockingPool
        /// On the large-request threads (a large request's decoding and checks).
        case largeRequestPool
        /// Started on the loop: a task or a callback that answers from another thread.
        case loop
    }

    let callID: UInt32
    let call: InFlightCall
    /// What the call's request is charged to the connection while it waits and runs.
    let charge: Int
    /// Runs the call's handler; its outcome goes to the completion.
    let start: @Sendable (@escaping @Sendable (CallOutcome) -> Void) -> Void
    let placement: Placement
    /// The method's answer sizes: what to reserve for its answer, and where to record it.
    let answers: AnswerSizes
    /// Set when a Cancel or deadline dropped the call before it started.
    var isReleased = false

    init(callID: UInt32, call: InFlightCall, charge: Int, placement: Placement, answers: AnswerSizes,
         start: @escaping @Sendable (@escaping @Sendable (CallOutcome) -> Void) -> Void) {
        self.callID = callID
        self.call = call
        self.charge = charge
        self.placement = placement
        self.answers = answers
        self.start = start
    }

    var runsOnPool: Bool { placement != .loop }
}

/// What the one admission rule (`Connection.workAdmission`) says about starting a call's work now.
enum WorkAdmission {
    case start
    /// The connection's budget has no room for the call's answer (or its pool places are taken).
    case waitForConnection
    /// The server as a whole holds too much and this connection is not a small one.
    case waitForServer
}

/// A connection's calls that work off the loop — blocking calls, large requests, async handlers'
/// tasks, callbacks, raw fast paths answering later — and the one rule that decides when each
/// may start (`workAdmission`).
///
/// A call's work starts when the connection's held bytes leave room under the byte budget for
/// the reservation of its answer (the largest answer its method has given so far, at least
/// `answerReservationBytes`: `AnswerSizes`; held until the work reports back),
/// or when nothing else of the connection is at work or unsent, so that it always progresses;
/// a blocking call or large request also needs one of the connection's
/// `maxBlockingCallsPerConnection` places on the pools. A call that may not start waits in the
/// connection, in arrival order, charged its request; the connection stops reading once that
/// charge and the rest go over the budget. So an async method's answers are bounded as a
/// blocking method's are: a client that never reads cannot make the server compute answers
/// faster than its budget takes them. A call cancelled or past its deadline while it waits is
/// dropped at once, and one that was on the pool but had not started is skipped there: neither
/// runs its handler.
extension Connection {
    /// What a call's request costs besides its message bytes (the call's records, its context,
    /// the metadata), charged to the byte budget with them.
    static let callOverheadBytes = 512
    /// Reserved in the byte budget for the answer of each call at work, whose size is known only
    /// once it is made: at least this, more for a method that has given larger answers.
    static let answerReservationBytes = 64 * 1024

    /// What a decoded request is charged while its work runs: its message bytes, and its decoded
    /// form counted as as many bytes again (a 3.7 MB CreateMessage is held both ways while it is
    /// checked and written), plus `callOverheadBytes`.
    static func requestCharge(messageBytes: Int) -> Int { 2 * messageBytes + callOverheadBytes }

    /// The one rule for starting a call's work (see the type's comment), for a call whose answer
    /// needs `reservation`. `adding` is the call's own charge when it is not yet in `heldBytes`
    /// (a new call asks before it is charged). `waitsForServer` is `mustWaitForServer`, which a
    /// raw fast path (running inside the decoder's access, where `footprint` may not read it)
    /// reads before the frame.
    func workAdmission(onPool: Bool, adding charge: Int = 0, reservation: Int, waitsForServer: Bool) -> WorkAdmission {
        // Fields read one by one, not the configuration copied: this runs for every call.
        if onPool, blockingRunning >= shared.configuration.maxBlockingCallsPerConnection { return .waitForConnection }
        let outputBytes = output.pending
        if workRunning > 0 || outputBytes > 0,
           outputBytes + heldBytes + charge + reservation > shared.configuration.maxOutputBufferBytes {
            return .waitForConnection
        }
        // Over the server's total, only small connections start work; the tick retries.
        return waitsForServer ? .waitForServer : .start
    }

    /// Whether a new call may skip the queue: none of the connection's calls is waiting (calls
    /// start in arrival order) and the rule admits it.
    func startsAtOnce(onPool: Bool, adding charge: Int, reservation: Int, waitsForServer: Bool) -> Bool {
        queuedByCallID.isEmpty && workAdmission(onPool: onPool, adding: charge, reservation: reservation, waitsForServer: waitsForServer) == .start
    }

    /// Tracks the call, charges its request and queues it for the blocking pool, or with
    /// `isLargeRequest` for the large-request pool.
    func queueBlocking(
        _ handler: @escaping RegisteredMethod.OffLoopHandler, callID: UInt32, request: Request, deadline: UInt64?, timeoutNanos: UInt64,
        answers: AnswerSizes, isLargeRequest: Bool = false
    ) {
        let call = InFlightCall()
        track(callID: callID, call: call, deadline: deadline, timeoutNanos: timeoutNanos)
        let context = RequestContext(
            callID: callID, method: request.method, metadata: request.metadata, peer: peer,
            arrivalNanos: arrivalNanos, deadlineNanos: deadline, cancellation: call.cancellation)
        let message = request.message
        let charge = Self.requestCharge(messageBytes: message.count)
        heldBytes += charge
        notePressure()
        let placement = isLargeRequest ? QueuedCall.Placement.largeRequestPool : .blockingPool
        enqueue(QueuedCall(callID: callID, call: call, charge: charge, placement: placement, answers: answers) { complete in
            handler(context, message, complete)
        })
        // Started once the read batch is decoded (processFrames), not now: a Cancel in the same
        // batch (a GetTags + Cancel loop) then drops the call before any thread can take it.
    }

    /// Puts a tracked and charged call at the back of the waiting calls.
    func enqueue(_ queued: QueuedCall) {
        blockingWaiting.append(queued)
        queuedByCallID[queued.callID] = queued
    }

    /// Counts a call's work as started and reserves `reservation` for its answer; returns what
    /// the work releases when it reports back (`workEnded`): the reservation and the request's
    /// `charge`.
    func reserveAnswer(charge: Int, reservation: Int) -> Int {
        heldBytes += reservation
        workRunning += 1
        notePressure()
        return charge + reservation
    }

    /// A call's work reported back (its answer is in the output, or dropped).
    func workEnded(releasing bytes: Int) {
        heldBytes -= bytes
        workRunning -= 1
    }

    /// Starts a tracked and charged call's work on the loop now (the rule admitted it): reserves
    /// its answer's room, which is released with its request's charge when the work reports back.
    func startOnLoop(_ start: @Sendable (@escaping @Sendable (CallOutcome) -> Void) -> Void,
                     callID: UInt32, call: InFlightCall, charge: Int, answers: AnswerSizes, reservation: Int) {
        let release = reserveAnswer(charge: charge, reservation: reservation)
        start(completion(callID: callID, call: call, answers: answers, releasing: release))
    }

    /// What a started call's work reports its outcome to: it notes the answer's size, then hops
    /// back to this loop through its task queue (and eventfd), gives back what the call held and
    /// answers it, unless a deadline, Cancel or close answered it first.
    func completion(callID: UInt32, call: InFlightCall, answers: AnswerSizes,
                    releasing release: Int) -> @Sendable (CallOutcome) -> Void {
        let loop = owner.loop
        return { [self] outcome in
            answers.note(outcome.body.count)
            loop.execute {
                self.workEnded(releasing: release)
                self.finish(callID: callID, call: call, status: outcome.status, message: outcome.message, body: outcome.body)
                self.scheduleFlush()
                self.budgetChanged()
            }
        }
    }

    /// Starts waiting calls, oldest first, while the rule admits them (see the type's comment).
    func startQueuedCalls() {
        guard case .open = state else { return }
        while let next = firstWaiting() {
            let reservation = next.answers.reservation(floor: Self.answerReservationBytes)
            switch workAdmission(onPool: next.runsOnPool, reservation: reservation, waitsForServer: mustWaitForServer) {
            case .start:
                break
            case .waitForConnection:
                return
            case .waitForServer:
                pausedForServer = true
                if !readingPaused { pauseReading() }
                return
            }
            blockingWaiting[blockingWaitingHead] = nil
            blockingWaitingHead += 1
            queuedByCallID[next.callID] = nil
            if next.runsOnPool {
                blockingRunning += 1
                submit(next, release: reserveAnswer(charge: next.charge, reservation: reservation))
            } else {
                startOnLoop(next.start, callID: next.callID, call: next.call, charge: next.charge, answers: next.answers,
                            reservation: reservation)
            }
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

    private func submit(_ queued: QueuedCall, release: Int) {
        let lane: BlockingPool.Lane
        let isLargeRequest = queued.placement == .largeRequestPool
        let pool = isLargeRequest ? shared.largeRequestPool : shared.blockingPool
        if let existing = isLargeRequest ? largeRequestLane : self.lane {
            lane = existing
        } else {
            lane = BlockingPool.Lane()
            if isLargeRequest { largeRequestLane = lane } else { self.lane = lane }
        }
        let loop = owner.loop
        let call = queued.call
        let callID = queued.callID
        let start = queued.start
        let done = completion(callID: callID, call: call, answers: queued.answers, releasing: release)
        let shared = self.shared
        pool.submit({ [self] in
            if call.cancellation.isSet {
                // Answered (CANCELLED, DEADLINE_EXCEEDED) or its connection closed while it
                // waited for a thread: the result would be dropped, so do none of the work.
                shared.blockingCallsSkipped.add(1, ordering: .relaxed)
                loop.execute {
                    self.workEnded(releasing: release)
                    self.blockingRunning -= 1
                    self.budgetChanged()
                }
                return
            }
            start(done)
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
