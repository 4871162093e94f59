#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import PushwireWire

/// A connection's ending: protocol errors and GoAway, graceful shutdown, closing the descriptor,
/// and the housekeeping timeouts (TLS handshake, preface, idle, incomplete frame, linger). Loop
/// thread only, like the rest of `Connection`.
extension Connection {
    func protocolError(_ error: FramingError) {
        // docs/PROTOCOL.md: an oversized frame is RESOURCE_EXHAUSTED, any other broken framing
        // INVALID_ARGUMENT; the message is the framing error's own sentence.
        let status: StatusCode
        switch error {
        case .frameTooLarge: status = .resourceExhausted
        case .badPreface, .undecodableFrame, .emptyFrame: status = .invalidArgument
        }
        shared.logger.debug("protocol error; closing", ["peer": peer.description, "error": error.description])
        goAwayAndClose(status: status, message: error.description)
    }

    /// Queues a GoAway that ends the connection, stops taking input and closes once it is sent.
    func goAwayAndClose(status: StatusCode, message: String) {
        guard case .open = state else {
            close(reason: message)
            return
        }
        Frame.goAway(lastCallID: highestCallID, status: status, message: message)
            .encode(appendingTo: &output.bytes, lengthPrefixed: true)
        goAwaySent = true
        state = .closing
        for call in inFlight.values { call.cancellation.set() }
        inFlight.removeAll()
        dropQueuedCalls()
        closeWhenFlushed = true
        lingerDeadline = monotonicNanos() &+ 2_000_000_000
        // Input is discarded from now on, so reading resumes even if it was paused.
        readingPaused = false
        updateInterest()
        scheduleFlush()
    }

    /// Graceful shutdown: tell the client the last call that will be answered; calls in flight
    /// finish, then the connection closes.
    func sendGoAway(status: StatusCode, message: String) {
        switch state {
        case .awaitingPreface:
            close(reason: "shutting down")
            return
        case .closing, .closed:
            return
        case .open:
            break
        }
        if goAwaySent { return }
        goAwaySent = true
        Frame.goAway(lastCallID: highestCallID, status: status, message: message)
            .encode(appendingTo: &output.bytes, lengthPrefixed: true)
        if inFlight.isEmpty { closeWhenFlushed = true }
        scheduleFlush()
    }

    /// Closes the descriptor now; calls in flight are cancelled and their results dropped.
    func close(reason: String) {
        if case .closed = state { return }
        state = .closed
        shared.logger.trace("connection closed", ["peer": peer.description, "reason": reason])
        loop.deregister(fd: stream.raw)
        stream.close()
        for call in inFlight.values { call.cancellation.set() }
        inFlight.removeAll()
        dropQueuedCalls()
        output.release()
        decoder = FrameDecoder(maxFrameSize: shared.configuration.maxFrameSize, expectsPreface: false)
        heldBytes = 0
        publishFootprint()
        owner.connectionClosed(self)
    }

    /// Housekeeping: preface, idle, incomplete-frame and linger timeouts, and resuming a
    /// connection held back for the server's total.
    func checkTimeouts(now: UInt64) {
        if pausedForServer, case .open = state,
           shared.bufferedBytes.load(ordering: .relaxed) <= shared.configuration.maxBufferedBytes / 8 * 7 {
            pausedForServer = false
            budgetChanged()
        }
        switch state {
        case .awaitingPreface:
            if stream.handshakeExpired(now: now) {
                close(reason: "TLS handshake timeout")
            } else if now &- openedAt > shared.prefaceTimeoutNanos {
                close(reason: "preface timeout")
            }
        case .open:
            // An idle connection gives its buffers back; the next frame allocates them again.
            if now &- lastFrameAt > 1_000_000_000, inFlight.isEmpty, decoder.bufferedByteCount == 0,
               decoder.allocatedByteCount > 0 || output.capacity > 0, !output.hasPending {
                decoder = FrameDecoder(maxFrameSize: shared.configuration.maxFrameSize, expectsPreface: false)
                output.release()
                publishFootprint()
            }
            if let since = partialFrameSince, now &- since > shared.incompleteFrameTimeoutNanos {
                goAwayAndClose(status: .deadlineExceeded, message: "a frame stayed incomplete for too long")
            } else if shared.idleTimeoutNanos > 0, inFlight.isEmpty, now &- lastFrameAt > shared.idleTimeoutNanos {
                goAwayAndClose(status: .ok, message: "idle timeout")
            }
        case .closing:
            if now > lingerDeadline { close(reason: "linger timeout") }
        case .closed:
            break
        }
    }
}
