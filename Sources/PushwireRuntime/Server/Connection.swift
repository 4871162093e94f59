#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import PushwireWire

/// A call that went off the loop and has not been answered yet. Its identity is the token that
/// lets a late result, a deadline and a Cancel find out whether they are still the first.
final class InFlightCall: Sendable {
    let cancellation = CancellationFlag()
    /// For the debug call log; nil when it is off.
    let logEntry: CallLog.Entry?

    init(logEntry: CallLog.Entry? = nil) {
        self.logEntry = logEntry
    }
}

/// One client connection: the preface, the frame decoder, the calls in flight, and one output
/// buffer that every response of a read batch or loop iteration is appended to before one write.
///
/// This file holds the state and the reading side (events, reads, the preface, the byte budget's
/// figures); Connection+Output.swift flushing (the output buffer, TLS/OutputBuffer.swift, is the
/// HTTP door's too) and backpressure;
/// Connection+Ending.swift GoAway, closing and the timeouts; Connection+Calls.swift the frames and
/// calls, Connection+BlockingCalls.swift the queue of calls waiting for the blocking threads.
///
/// `@unchecked Sendable`: every property is touched only on the owning loop's thread. Other
/// threads only carry a reference back to that loop inside `EventLoop.execute`.
final class Connection: EventHandler, @unchecked Sendable {
    enum State {
        /// Waiting for the client's 8-byte preface; `prefaceMatched` bytes of it so far.
        case awaitingPreface
        /// Frames flow.
        case open
        /// A GoAway ending the connection is queued or sent; input is read and discarded until
        /// the peer closes or `lingerDeadline` passes, so the GoAway is not destroyed by a reset.
        case closing
        case closed
    }

    /// The socket, with TLS over it for a connection accepted on a TLS listener.
    var stream: ByteStream
    let peer: SocketAddress
    // unowned(unsafe): the loop server holds every connection it owns until the connection
    // closes, so it always outlives it; this skips an atomic check on every access.
    unowned(unsafe) let owner: LoopServer
    var shared: ServerShared { owner.shared }
    /// The owner's loop, held like `owner`: reached through `owner` on every call, it was retained
    /// and released each time, on Swift's slow path (the balancer's weak reference to the owner).
    unowned(unsafe) let loop: EventLoop
    /// When the frames being processed arrived: when the loop last woke (`EventLoop.wokeAtNanos`).
    var arrivalNanos: UInt64 { loop.wokeAtNanos }

    var state = State.awaitingPreface
    /// Whether the TLS client presented a certificate leading to the server's client CA; set once
    /// the handshake is done (`ServerConfiguration.clientCertificateServices`).
    private(set) var clientCertificateVerified = false
    private var prefaceMatched = 0
    var decoder: FrameDecoder
    /// Every answer of a read batch or loop iteration, written in one flush.
    ///
    /// Without the runtime's dynamic exclusivity checks: a call's work reads or appends to it
    /// three or four times (the budget's look at what is pending, the answer, the pressure
    /// note), and each check cost about 90 instructions with its thread-local lookup — a tenth
    /// of a SyncCategories call answered from the cache (callgrind). What makes that safe: only
    /// the connection's own methods touch it, on its loop's thread, and none calls out while it
    /// holds the buffer — frames are appended by encoders that are handed the bytes alone, and
    /// `flush` hands them to the socket or TLS session, whose only callback counts bytes. A new
    /// use must keep it so: no closure that may reach this connection inside an access.
    @exclusivity(unchecked) var output = OutputBuffer()
    var inFlight: [UInt32: InFlightCall] = [:]
    var highestCallID: UInt32 = 0
    var goAwaySent = false
    var closeWhenFlushed = false
    var lingerDeadline: UInt64 = 0

    var interest: UInt32 = 0
    var readingPaused = false
    var wantsWritable = false
    var flushScheduled = false
    private var readChunk = 2048
    /// Set when `processFrames` stopped after its turn's share of frames with more buffered: the
    /// rest is decoded from a task queued behind the loop's other ready connections.
    var turnYielded = false

    /// Bytes charged to the connection besides its unsent output: the request of every call whose
    /// work has not ended, with its decoded form (released when the work reports back, even if a
    /// Cancel or deadline answered the call first, since the work still holds the request), and
    /// a reservation for the answer of each call at work (`workRunning`). With the output, what
    /// the byte budget (`maxOutputBufferBytes`) bounds (Connection+BlockingCalls.swift).
    var heldBytes = 0
    /// Calls whose work started and has not reported back, each holding an answer reservation:
    /// blocking calls, large requests, tasks, callbacks and raw fast paths answering later.
    var workRunning = 0
    /// The most this connection held, as last published to `shared.peakHeldBytes`.
    private var publishedPeak = 0
    /// Blocking calls handed to the pool whose thread has not yet reported back.
    var blockingRunning = 0
    /// Calls waiting for their work to start, oldest first (from `blockingWaitingHead`);
    /// entries released by a Cancel or deadline stay until they reach the front or a compaction.
    var blockingWaiting: [QueuedCall?] = []
    var blockingWaitingHead = 0
    var releasedWaitingCount = 0
    /// The waiting calls by id, so that a Cancel or deadline finds its call's entry.
    var queuedByCallID: [UInt32: QueuedCall] = [:]
    /// This connection's queues on the blocking and large-request pools, made on first use.
    var lane: BlockingPool.Lane?
    var largeRequestLane: BlockingPool.Lane?
    /// The footprint last added to `shared.bufferedBytes`.
    private var publishedFootprint = 0
    /// Set when reading stopped because the server as a whole holds too much
    /// (`maxBufferedBytes`); the housekeeping tick resumes it.
    var pausedForServer = false
    /// A connection holding at most this is never held back for the server's total: ordinary
    /// calls go on while large ones wait.
    static let smallFootprint = 64 * 1024

    let openedAt: UInt64
    var lastFrameAt: UInt64
    var partialFrameSince: UInt64?

    init(stream: consuming ByteStream, peer: SocketAddress, owner: LoopServer, now: UInt64) {
        self.stream = stream
        self.peer = peer
        self.owner = owner
        self.loop = owner.loop
        self.decoder = FrameDecoder(maxFrameSize: owner.shared.configuration.maxFrameSize, expectsPreface: false)
        self.openedAt = now
        self.lastFrameAt = now
    }

    var rawFD: Int32 { stream.raw }
    var hasCallsInFlight: Bool { !inFlight.isEmpty }

    /// Bytes the connection makes the server hold: unsent output plus `heldBytes`.
    var heldTotal: Int { output.pending + heldBytes }

    /// What the connection holds in memory: its input buffer, its output buffer, `heldBytes`
    /// and what OpenSSL holds for it (`TLSSession.footprint`).
    var footprint: Int { decoder.allocatedByteCount + output.capacity + heldBytes + stream.footprint }

    /// Adds the change in `footprint` to the server's total, when it moved by 16 KiB or more (or
    /// to 0): one atomic add per read batch at most, and a total exact to 16 KiB per connection.
    func publishFootprint() {
        let current = footprint
        let delta = current - publishedFootprint
        guard delta >= 16 * 1024 || delta <= -16 * 1024 || (current == 0 && delta != 0) else { return }
        publishedFootprint = current
        let total = shared.bufferedBytes.add(delta, ordering: .relaxed).newValue
        if delta > 0 { shared.peakBufferedBytes.max(total, ordering: .relaxed) }
    }

    /// Whether this connection must wait for the server's total to fall: it holds more than a
    /// small connection and the total is over `maxBufferedBytes`. The total first: one atomic
    /// load, where `footprint` reads four properties, each with its exclusivity check (this
    /// runs for every frame).
    var mustWaitForServer: Bool {
        shared.isOverBufferedBytes && footprint > Self.smallFootprint
    }

    /// Publishes a new peak of `heldTotal`; an integer compare unless it is one.
    @inline(__always)
    func notePressure() {
        let held = heldTotal
        if held > publishedPeak {
            publishedPeak = held
            shared.peakHeldBytes.max(held, ordering: .relaxed)
        }
    }

    /// Registers with the loop for input (edge-triggered).
    func register() throws(SystemError) {
        interest = CPW_EPOLLIN | CPW_EPOLLRDHUP | CPW_EPOLLET
        try loop.register(fd: stream.raw, events: interest, handler: self)
    }

    // MARK: Events

    func handleEvents(_ events: UInt32) {
        if events & CPW_EPOLLOUT != 0 {
            flush()
        }
        if pausedForServer, events & (CPW_EPOLLRDHUP | CPW_EPOLLHUP | CPW_EPOLLERR) != 0 {
            // Held back for the server's total with its input unread: a peer that has stopped
            // sending cannot complete what it started, and what it holds is wanted back now,
            // not at the incomplete-frame timeout.
            close(reason: "peer closed while held back for the server's memory")
            return
        }
        // A TLS read that waited for the socket to take a handshake message goes on once it does.
        let tlsReadWaited = events & CPW_EPOLLOUT != 0 && stream.readWantsWrite
        if events & (CPW_EPOLLIN | CPW_EPOLLRDHUP | CPW_EPOLLHUP | CPW_EPOLLERR) != 0 || tlsReadWaited {
            // When the peer has closed its side, read to the end even after a short read: the
            // end of stream raises no further edge.
            readAvailable(toTheEnd: events & (CPW_EPOLLRDHUP | CPW_EPOLLHUP | CPW_EPOLLERR) != 0)
        }
        if case .closed = state { return }
        // One write for everything this read batch produced.
        if output.hasPending { flush() }
        publishFootprint()
    }

    func readAvailable(toTheEnd: Bool = false) {
        // A fixed budget of reads per wake-up keeps one busy peer from starving the loop's others.
        var budget = 16
        while budget > 0 {
            budget -= 1
            switch state {
            case .closed:
                return
            case .closing:
                if !discardInput() { return }
                continue
            case .awaitingPreface:
                if !readPreface() { return }
                continue
            case .open:
                break
            }
            if readingPaused { return }
            // Published before each read, so that connections growing in the same wake see
            // each other's growth.
            publishFootprint()
            if mustWaitForServer {
                if toTheEnd {
                    // The peer has closed its side: see handleEvents.
                    close(reason: "peer closed while held back for the server's memory")
                    return
                }
                pausedForServer = true
                pauseReading()
                return
            }
            var outcome = StreamRead.wouldBlock
            var filled = false
            let chunk = readChunk
            let rpcBytes = shared.rpcBytes
            let read = { (buffer: UnsafeMutableRawBufferPointer) -> Int in
                outcome = self.receive(into: buffer)
                guard case .bytes(let count) = outcome else { return 0 }
                filled = count == buffer.count
                rpcBytes?.add(0, UInt64(count))
                return count
            }
            if decoder.bufferedByteCount == 0 {
                // Nothing pending: read into the loop's scratch buffer and hand the decoder only
                // what arrived, so a connection allocates no buffer until it has bytes to hold
                // (10,000 idle connections cost no decoder memory).
                let count = read(UnsafeMutableRawBufferPointer(rebasing: owner.scratch[0..<max(chunk, 16 * 1024)]))
                if count > 0 { decoder.append(UnsafeRawBufferPointer(rebasing: owner.scratch[0..<count])) }
            } else {
                decoder.withWritableTail(minimumCapacity: chunk, read)
            }
            switch outcome {
            case .wouldBlock:
                return
            case .end:
                // The answers to what it sent before closing still go out, as far as the socket
                // takes them without waiting; calls still in flight are dropped.
                if output.hasPending { flush() }
                close(reason: "peer closed")
                return
            case .failed(let reason):
                close(reason: reason)
                return
            case .bytes:
                if filled, readChunk < 65536 { readChunk *= 2 }
                processFrames()
                if readingPaused || turnYielded { return }
                // A short read drained the socket; with edge triggering, more data raises a new
                // event. Under TLS too, unless the read stopped before an end or failure.
                if !filled && !toTheEnd && !stream.shortReadMayLeaveMore { return }
            }
        }
        // Budget used up with data maybe left: come back after the other ready descriptors.
        if case .open = state, !readingPaused, !turnYielded {
            loop.execute { [self] in
                self.readAvailable(toTheEnd: toTheEnd)
                if case .closed = self.state { return }
                if self.output.hasPending { self.flush() }
            }
        }
    }

    /// One read from the byte stream: the socket, or the TLS session over it.
    private func receive(into buffer: UnsafeMutableRawBufferPointer) -> StreamRead {
        let result = stream.receive(into: buffer)
        if stream.readWantsWrite, !wantsWritable {
            wantsWritable = true
            updateInterest()
        }
        return result
    }

    /// Reads into the loop's scratch buffer until the 8 preface bytes are in; returns whether to
    /// keep reading.
    private func readPreface() -> Bool {
        let scratch = owner.scratch
        // Read only what the preface still needs: the rest stays in the socket (or the TLS
        // session) for the decoder.
        switch receive(into: UnsafeMutableRawBufferPointer(rebasing: scratch[0..<(8 - prefaceMatched)])) {
        case .failed(let reason):
            if stream.isTLS { shared.logger.debug("TLS handshake failed; closing", ["peer": peer.description, "error": reason]) }
            close(reason: reason)
            return false
        case .wouldBlock:
            return false
        case .end, .bytes(0):
            close(reason: "peer closed before the preface")
            return false
        case .bytes(let count):
            shared.rpcBytes?.add(0, UInt64(count))
            let expected = WireProtocol.preface
            for i in 0..<count where scratch[i] != expected[prefaceMatched + i] {
                shared.logger.debug("wrong preface; closing", ["peer": peer.description])
                close(reason: "wrong preface")
                return false
            }
            prefaceMatched += count
            if prefaceMatched == 8 {
                state = .open
                clientCertificateVerified = stream.clientCertificateVerified
                lastFrameAt = monotonicNanos()
                output.bytes.append(contentsOf: shared.greeting)
                if shared.isDraining { sendGoAway(status: .ok, message: "server is shutting down") }
            }
            return true
        }
    }

    /// Reads and drops input while closing; returns whether to keep reading.
    private func discardInput() -> Bool {
        switch receive(into: owner.scratch) {
        case .bytes(let count):
            if count == 0 {
                close(reason: "peer closed after goaway")
                return false
            }
            return true
        case .end:
            close(reason: "peer closed after goaway")
            return false
        case .wouldBlock:
            return false
        case .failed:
            close(reason: "read failed while closing")
            return false
        }
    }
}
