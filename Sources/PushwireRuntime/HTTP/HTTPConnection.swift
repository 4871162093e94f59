#if canImport(Glibc)
import Glibc
#endif
import CPushwireLinux
import PushwireWire

/// One HTTP/1.1 client connection: reads and parses requests (pipelined ones too), hands each
/// to the router, and writes the answers back in request order, however they complete.
///
/// `@unchecked Sendable`: every property is touched only on the owning loop's thread; other
/// threads only carry a reference back to that loop inside `EventLoop.execute`.
final class HTTPConnection: EventHandler, @unchecked Sendable {
    private enum State {
        case open
        /// No more requests are read (a failure, `Connection: close`, the peer's end of stream):
        /// the answers owed go out, then the connection closes.
        case finishing
        /// Everything is written and the write side shut down; input is discarded until the
        /// peer closes or `lingerDeadline` passes, so the last answer is not destroyed by a reset.
        case lingering
        case closed
    }

    /// The socket, with TLS over it when the door speaks TLS.
    private var stream: ByteStream
    let peer: SocketAddress
    // unowned(unsafe): the loop's HTTP server holds every connection until it closes.
    unowned(unsafe) let owner: HTTPLoopServer
    private let parser: HTTPRequestParser
    private var state = State.open

    /// Answers owed, in request order: `pending[0]` answers request number `base`.
    private var pending: [HTTPResponse?] = []
    private var headOnly: [Bool] = []
    private var base = 0
    /// The request after whose answer the connection closes.
    private var closeAfter: Int?
    private var exchanges: [Int: HTTPExchange] = [:]

    /// The answers ready in request order, written in one flush.
    private var output = OutputBuffer()
    private var interest: UInt32 = 0
    private var readingPaused = false
    private var wantsWritable = false
    private var flushScheduled = false

    private var lastActivity: UInt64
    private var requestStartedAt: UInt64?
    private var lingerDeadline: UInt64 = 0

    init(stream: consuming ByteStream, peer: SocketAddress, owner: HTTPLoopServer, now: UInt64) {
        self.stream = stream
        self.peer = peer
        self.owner = owner
        parser = HTTPRequestParser(limits: owner.door.configuration, peer: peer)
        lastActivity = now
    }

    var rawFD: Int32 { stream.raw }

    func register() throws(SystemError) {
        interest = CPW_EPOLLIN | CPW_EPOLLRDHUP | CPW_EPOLLET
        try owner.loop.register(fd: stream.raw, events: interest, handler: self)
    }

    // MARK: Events

    func handleEvents(_ events: UInt32) {
        if events & CPW_EPOLLOUT != 0 { flush() }
        // A TLS read that waited for the socket to take a handshake message goes on once it does.
        let tlsReadWaited = events & CPW_EPOLLOUT != 0 && stream.readWantsWrite
        if events & (CPW_EPOLLIN | CPW_EPOLLRDHUP | CPW_EPOLLHUP | CPW_EPOLLERR) != 0 || tlsReadWaited { readAvailable() }
        if case .closed = state { return }
        if output.hasPending { flush() }
    }

    private func readAvailable() {
        var budget = 16
        while budget > 0 {
            budget -= 1
            switch state {
            case .closed:
                return
            case .open:
                if readingPaused { return }
            case .finishing, .lingering:
                if !discardInput() { return }
                continue
            }
            let scratch = owner.scratch
            switch receive(into: scratch) {
            case .wouldBlock:
                return
            case .end, .bytes(0):
                peerClosed()
                return
            case .failed(let reason):
                if stream.isTLS, !stream.isHandshakeDone {
                    owner.door.logger.debug("TLS handshake failed; closing", ["peer": peer.description, "error": reason])
                }
                close(reason: reason)
                return
            case .bytes(let count):
                owner.door.metrics.http.received(count)
                lastActivity = monotonicNanos()
                parse(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
                // A short read drained the socket (under TLS too, unless it stopped before an end).
                if count < scratch.count, !stream.shortReadMayLeaveMore { return }
            }
        }
        if case .open = state, !readingPaused {
            // Budget used up with data maybe left: come back after the loop's other descriptors.
            owner.loop.execute { [self] in
                self.readAvailable()
                if case .closed = self.state { return }
                if self.output.hasPending { self.flush() }
            }
        }
    }

    /// One read from the byte stream; asks for writability when TLS needs it to read on.
    private func receive(into buffer: UnsafeMutableRawBufferPointer) -> StreamRead {
        let result = stream.receive(into: buffer)
        if stream.readWantsWrite, !wantsWritable {
            wantsWritable = true
            updateInterest()
        }
        return result
    }

    private func parse(_ bytes: UnsafeRawBufferPointer) {
        var failure: HTTPParseFailure?
        do {
            try parser.feed(bytes)
        } catch {
            failure = error
        }
        let completed = parser.completed
        parser.completed.removeAll(keepingCapacity: true)
        for parsed in completed {
            guard case .open = state else { break }
            let number = base + pending.count
            pending.append(nil)
            headOnly.append(parsed.isHead)
            if !parsed.keepAlive { finishAfter(number) }
            dispatch(parsed.request, number: number)
        }
        if let failure, case .open = state {
            owner.door.logger.debug("bad HTTP request; closing", ["peer": peer.description, "error": "\(failure)"])
            answerLast(failure.response)
        }
        requestStartedAt = parser.inProgress ? (requestStartedAt ?? monotonicNanos()) : nil
        if parser.awaitsContinue, case .open = state {
            parser.awaitsContinue = false
            // Only with nothing owed before it, so answers stay in order; otherwise the client
            // sends the body after its own wait.
            if pending.isEmpty {
                output.bytes.append(contentsOf: "HTTP/1.1 100 Continue\r\n\r\n".utf8)
                scheduleFlush()
            }
        }
        if case .open = state, pending.count >= owner.door.configuration.maxPipelinedRequests { setReadingPaused(true) }
    }

    /// Queues `response` after every answer owed and closes once it is written.
    private func answerLast(_ response: HTTPResponse) {
        let number = base + pending.count
        pending.append(response)
        headOnly.append(false)
        finishAfter(number)
        writeReadyAnswers()
    }

    private func finishAfter(_ number: Int) {
        closeAfter = min(closeAfter ?? number, number)
        state = .finishing
        readingPaused = false
        updateInterest()
    }

    private func dispatch(_ request: HTTPRequest, number: Int) {
        let loop = owner.loop
        let door = owner.door
        let exchange = HTTPExchange(loop: loop, deliver: { [self] response in
            loop.execute { self.complete(number, response) }
        }, invoke: { [peer, verified = stream.clientCertificateVerified] path, message, metadata, cancellation, deadline, done in
            MethodInvoker.invoke(door.table, loop: loop, path: path, message: message, metadata: metadata, peer: peer,
                                 clientCertificateVerified: verified, deadline: deadline, cancellation: cancellation, completion: done)
        })
        exchanges[number] = exchange
        door.router.route(request, exchange)
        if let inline = exchange.endDispatch() { complete(number, inline) }
    }

    /// Stores the answer of request `number`, and writes every answer now ready in order.
    private func complete(_ number: Int, _ response: HTTPResponse) {
        if case .closed = state { return }
        exchanges[number] = nil
        let index = number - base
        guard index >= 0, index < pending.count, pending[index] == nil else { return }
        pending[index] = response
        writeReadyAnswers()
    }

    private func writeReadyAnswers() {
        var wrote = false
        while let first = pending.first, let response = first {
            let closing = closeAfter == base
            response.serialize(into: &output.bytes, close: closing, headOnly: headOnly[0])
            owner.door.metrics.http.answered(status: response.status)
            pending.removeFirst()
            headOnly.removeFirst()
            base += 1
            wrote = true
            if closing {
                pending.removeAll()
                headOnly.removeAll()
                break
            }
        }
        guard wrote else { return }
        lastActivity = monotonicNanos()
        if case .open = state, readingPaused, pending.count < owner.door.configuration.maxPipelinedRequests {
            setReadingPaused(false)
            owner.loop.execute { [self] in self.readAvailable() }
        }
        scheduleFlush()
    }

    private func peerClosed() {
        if pending.isEmpty {
            if output.hasPending { flush() }
            close(reason: "peer closed")
            return
        }
        // The answers to what it sent before closing still go out.
        finishAfter(base + pending.count - 1)
    }

    private func discardInput() -> Bool {
        switch receive(into: owner.scratch) {
        case .bytes(0), .end:
            if case .lingering = state { close(reason: "peer closed") } else { peerClosedWhileFinishing() }
            return false
        case .bytes:
            return true
        case .wouldBlock:
            return false
        case .failed:
            close(reason: "read failed")
            return false
        }
    }

    private func peerClosedWhileFinishing() {
        // The peer closed its side: what it is owed is still written when ready; with nothing
        // owed the connection is done.
        if pending.isEmpty, !output.hasPending { close(reason: "peer closed") }
    }

    // MARK: Output

    private func scheduleFlush() {
        if flushScheduled { return }
        flushScheduled = true
        owner.loop.atEndOfIteration { [self] in self.flush() }
    }

    private func flush() {
        flushScheduled = false
        if case .closed = state { return }
        let metrics = owner.door.metrics.http
        let outcome = output.flush(into: stream) { metrics.sent($0) }
        if case .failed(let reason) = outcome {
            close(reason: reason)
            return
        }
        let writable = outcome.writableInterest(before: wantsWritable, readWantsWrite: stream.readWantsWrite)
        if writable != wantsWritable {
            wantsWritable = writable
            updateInterest()
        }
        guard case .drained = outcome else { return }
        if case .finishing = state, pending.isEmpty {
            stream.shutdownWrite()
            state = .lingering
            lingerDeadline = monotonicNanos() &+ 2_000_000_000
            readingPaused = false
            updateInterest()
        }
    }

    private func setReadingPaused(_ paused: Bool) {
        readingPaused = paused
        updateInterest()
    }

    private func updateInterest() {
        if case .closed = state { return }
        var events = CPW_EPOLLRDHUP | CPW_EPOLLET
        if !readingPaused { events |= CPW_EPOLLIN }
        if wantsWritable { events |= CPW_EPOLLOUT }
        guard events != interest else { return }
        interest = events
        do {
            try owner.loop.modify(fd: stream.raw, events: events)
        } catch {
            close(reason: "\(error)")
        }
    }

    // MARK: Ending

    /// Housekeeping: the request, idle and linger timeouts.
    func checkTimeouts(now: UInt64) {
        let configuration = owner.door
        if stream.handshakeExpired(now: now) {
            close(reason: "TLS handshake timeout")
            return
        }
        switch state {
        case .open:
            if let started = requestStartedAt, now &- started > configuration.requestTimeoutNanos {
                owner.door.logger.debug("HTTP request too slow; closing", ["peer": peer.description])
                requestStartedAt = nil
                answerLast(.text(408, "the request was not complete within \(configuration.configuration.requestTimeout)"))
            } else if pending.isEmpty, requestStartedAt == nil, !output.hasPending,
                      now &- lastActivity > configuration.idleTimeoutNanos {
                close(reason: "idle timeout")
            }
        case .finishing:
            // Answers owed to a request that never completes would hold the connection forever.
            if now &- lastActivity > configuration.idleTimeoutNanos { close(reason: "answers not taken") }
        case .lingering:
            if now > lingerDeadline { close(reason: "linger timeout") }
        case .closed:
            break
        }
    }

    /// Shutdown: closes now when nothing is owed, else after the answers owed.
    func beginDrain() {
        guard case .open = state else { return }
        if pending.isEmpty, !parser.inProgress {
            close(reason: "server is shutting down")
        } else if !pending.isEmpty {
            finishAfter(base + pending.count - 1)
        }
    }

    func close(reason: String) {
        if case .closed = state { return }
        state = .closed
        owner.door.logger.trace("HTTP connection closed", ["peer": peer.description, "reason": reason])
        owner.loop.deregister(fd: stream.raw)
        stream.close()
        for exchange in exchanges.values { exchange.cancellation.set() }
        exchanges.removeAll()
        pending.removeAll()
        headOnly.removeAll()
        output.release()
        owner.connectionClosed(self)
    }
}
