#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import PushwireWire

/// A connection's output: one buffer every answer of a read batch or loop iteration is appended
/// to, flushed in as few writes as the socket takes; pausing and resuming reads on the byte budget
/// and epoll interest. Loop thread only, like the rest of `Connection`.
extension Connection {
    func scheduleFlush() {
        if flushScheduled { return }
        flushScheduled = true
        owner.scheduleFlush(self)
    }

    /// Writes as much of the output buffer as the socket takes, in one call when it takes it all.
    func flush() {
        flushScheduled = false
        if case .closed = state { return }
        let rpcBytes = shared.rpcBytes
        let outcome = output.flush(into: stream) { rpcBytes?.add(1, UInt64($0)) }
        if case .failed(let reason) = outcome {
            close(reason: reason)
            return
        }
        let writable = outcome.writableInterest(before: wantsWritable, readWantsWrite: stream.readWantsWrite)
        if writable != wantsWritable {
            wantsWritable = writable
            updateInterest()
        }
        budgetChanged()
        guard case .drained = outcome else { return }
        if closeWhenFlushed {
            stream.shutdownWrite()
            if case .open = state {
                state = .closing
                lingerDeadline = monotonicNanos() &+ 2_000_000_000
            }
        }
    }

    /// Decodes what is buffered and reads on: after a pause or a yielded turn.
    private func resumeAfterBackpressure() {
        guard case .open = state, !readingPaused else { return }
        processFrames()
        if !readingPaused, !turnYielded { readAvailable(toTheEnd: true) }
        if case .closed = state { return }
        if output.hasPending { flush() }
    }

    /// Ends `processFrames`' turn with frames still buffered: they are decoded from a task that
    /// runs after the loop's other ready connections have had theirs.
    func yieldTurn() {
        if turnYielded { return }
        turnYielded = true
        loop.execute { [self] in
            self.turnYielded = false
            self.resumeAfterBackpressure()
        }
    }

    func pauseReading() {
        shared.peakPausedOutputBytes.max(output.pending, ordering: .relaxed)
        shared.backpressurePauses.add(1, ordering: .relaxed)
        notePressure()
        readingPaused = true
        updateInterest()
    }

    /// After the connection's held bytes went down (output written, a call's work ended, a
    /// queued call dropped): starts queued blocking calls that now fit, and resumes reading once
    /// the connection holds at most half its budget (so that it does not pause and resume on
    /// every answer).
    func budgetChanged() {
        guard case .open = state else { return }
        publishFootprint()
        if blockingWaitingHead < blockingWaiting.count { startQueuedCalls() }
        guard readingPaused, !pausedForServer, heldTotal <= shared.configuration.maxOutputBufferBytes / 2 else { return }
        readingPaused = false
        updateInterest()
        // Frames may be waiting in the decoder with nothing left in the socket to raise an event:
        // decode them after this iteration.
        loop.execute { [self] in self.resumeAfterBackpressure() }
    }

    func updateInterest() {
        var events = CPW_EPOLLRDHUP | CPW_EPOLLET
        if !readingPaused { events |= CPW_EPOLLIN }
        if wantsWritable { events |= CPW_EPOLLOUT }
        guard events != interest else { return }
        interest = events
        // Re-arming EPOLLIN with EPOLL_CTL_MOD raises an event if input is already waiting, so a
        // paused connection resumes without a lost wake-up.
        do {
            try loop.modify(fd: stream.raw, events: events)
        } catch {
            close(reason: "\(error)")
        }
    }
}
