import PushwireSystem
import PushwireWire

extension ClientConnection {
    private enum StartOutcome {
        case sent(flush: Bool, wakeTimerAt: ContinuousClock.Instant?)
        case failed(RPCError)
    }

    /// Registers a call (or ping) and queues its frame, all under one lock; then writes, unless
    /// another task is already writing (it will pick this frame up).
    func start(
        callID: UInt32, deadline: ContinuousClock.Instant?, isPing: Bool, frameSize: Int,
        continuation: CallContinuation, write: (inout [UInt8]) -> Void
    ) {
        let outcome = state.withLock { s -> StartOutcome in
            if let error = s.closed ?? s.goAway { return .failed(error) }
            // Checked under the lock: a cancellation that ran its handler before this call was
            // registered found nothing to cancel, but has already set the flag.
            if Task.isCancelled { return .failed(RPCError(.cancelled, "the call was cancelled")) }
            if !isPing {
                let limit = s.settings.maxConcurrentCalls
                if limit > 0 && s.callsInFlight >= limit {
                    return .failed(RPCError(.resourceExhausted, "\(s.callsInFlight) calls in flight on this connection, the server allows \(limit)"))
                }
                if s.settings.maxFrameSize > 0 && frameSize > s.settings.maxFrameSize {
                    return .failed(RPCError(.resourceExhausted, "the request (\(frameSize) bytes) exceeds the server's frame size limit of \(s.settings.maxFrameSize) bytes"))
                }
                s.callsInFlight += 1
            }
            s.pending[callID] = PendingCall(continuation: continuation, deadline: deadline, isPing: isPing)
            write(&s.output)
            var wake: ContinuousClock.Instant?
            if let deadline, s.earliestDeadline.map({ deadline < $0 }) ?? true {
                s.earliestDeadline = deadline
                wake = deadline
            }
            let flush = !s.flushing
            s.flushing = true
            return .sent(flush: flush, wakeTimerAt: wake)
        }
        switch outcome {
        case .failed(let error):
            continuation.resume(throwing: error)
        case .sent(let flush, let wake):
            if let wake { DeadlineTimer.shared.schedule(self, at: wake) }
            if flush { flushOutput() }
        }
    }

    /// Fails a pending call with CANCELLED and tells the server with a Cancel frame.
    func cancel(callID: UInt32) {
        var flush = false
        let continuation = state.withLock { s -> CallContinuation? in
            guard let pending = s.pending.removeValue(forKey: callID) else { return nil }
            if !pending.isPing {
                s.callsInFlight -= 1
                if s.closed == nil {
                    HotFrames.appendCancelFrame(callID: callID, to: &s.output)
                    flush = !s.flushing
                    s.flushing = true
                }
            }
            return pending.continuation
        }
        continuation?.resume(throwing: RPCError(.cancelled, "the call was cancelled"))
        if flush { flushOutput() }
    }

    /// Fails the calls whose deadline passed with DEADLINE_EXCEEDED and sends a Cancel for each,
    /// so the server stops working on them.
    func expireDeadlines(now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        var expired: [CallContinuation] = []
        var flush = false
        let next = state.withLock { s -> ContinuousClock.Instant? in
            var earliest: ContinuousClock.Instant?
            for (id, pending) in s.pending {
                guard let deadline = pending.deadline else { continue }
                if deadline <= now {
                    s.pending[id] = nil
                    expired.append(pending.continuation)
                    if !pending.isPing {
                        s.callsInFlight -= 1
                        if s.closed == nil { HotFrames.appendCancelFrame(callID: id, to: &s.output) }
                    }
                } else if earliest.map({ deadline < $0 }) ?? true {
                    earliest = deadline
                }
            }
            s.earliestDeadline = earliest
            if !s.output.isEmpty && !s.flushing && s.closed == nil {
                s.flushing = true
                flush = true
            }
            return earliest
        }
        for continuation in expired {
            continuation.resume(throwing: RPCError(.deadlineExceeded, "the deadline passed before the server answered"))
        }
        if flush { flushOutput() }
        return next
    }

    /// Writes the output buffer until it is empty. Only one task runs this at a time (the one
    /// that set `flushing`); others append meanwhile and their frames go out in the next round.
    func flushOutput() {
        var chunk: [UInt8] = []
        var first = true
        let tls = self.tls
        while true {
            let proceed = state.withLock { s -> Bool in
                if first {
                    swap(&chunk, &s.spare)
                    first = false
                }
                if (s.output.isEmpty && tls?.hasPendingOutput != true) || s.closed != nil {
                    if s.closed != nil { s.output.removeAll(keepingCapacity: true) }
                    swap(&chunk, &s.spare)
                    s.flushing = false
                    closeDescriptorIfDone(&s)
                    return false
                }
                guard let tls else {
                    swap(&chunk, &s.output)
                    return true
                }
                // Sealed under the lock, so records leave in the order they were made; sent
                // outside it, like clear text.
                let failure = s.output.withUnsafeBytes { plain -> String? in
                    do { try tls.seal(plain, appendingTo: &chunk) } catch { return "\(error)" }
                    return nil
                }
                if let failure {
                    s.closed = RPCError(.unavailable, "connection lost: \(failure)")
                    if !s.fdClosed { Syscall.shutdown(fd) }
                }
                s.output.removeAll(keepingCapacity: true)
                return true
            }
            guard proceed else { return }
            do {
                try chunk.withUnsafeBytes { bytes in try Syscall.sendAll(fd, bytes) }
            } catch {
                state.withLock { s in
                    if s.closed == nil { s.closed = RPCError(.unavailable, "connection lost: \(error)", cause: error) }
                    if !s.fdClosed { Syscall.shutdown(fd) }
                }
            }
            chunk.removeAll(keepingCapacity: true)
        }
    }

    /// Closes the socket once nobody uses it any more: the reader has exited and no write is in
    /// progress. Called with the lock held by both of them, so exactly one closes it.
    func closeDescriptorIfDone(_ s: inout ConnectionState) {
        if s.readerExited && !s.flushing && !s.fdClosed {
            s.fdClosed = true
            Syscall.close(fd)
            // The session and the reference to its context go now, not with the last reference
            // to the connection (a pool or a caller may keep one long after).
            tls?.release()
        }
    }
}
