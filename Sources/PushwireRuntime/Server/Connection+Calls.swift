#if canImport(Glibc)
import Glibc
#endif
import PushwireWire

/// A connection's frames and calls: decoding each frame (or handing a request to a raw fast
/// path), the checks every call passes, on-loop and off-loop handlers, deadlines, Cancel, and
/// appending each answer to the connection's output. Loop thread only, like the rest of
/// `Connection`.
extension Connection {
    /// A connection's share of one loop turn: after this many frame bytes or frames, the rest of
    /// what it has buffered waits until the loop's other ready connections have had their turn,
    /// so that one peer's pipelined big requests do not hold up the others' small calls.
    static let turnBytes = 256 * 1024
    static let turnFrames = 512

    func processFrames() {
        var completedAny = false
        var turnBytes = 0
        var turnFrames = 0
        while case .open = state, !readingPaused {
            let step: FrameStep?
            var size = 0
            // Read here: inside `withNextPayload` the decoder (part of the footprint) is in use.
            let waitsForServer = mustWaitForServer
            do {
                step = try decoder.withNextPayload { payload in
                    size = payload.count
                    return self.answerOrDecode(payload, waitsForServer: waitsForServer)
                }
            } catch {
                protocolError(error)
                return
            }
            guard let step else { break }
            completedAny = true
            switch step {
            case .answered:
                break
            case .decoded(let frame):
                dispatch(frame)
            case .failed(let error):
                protocolError(error)
                return
            }
            // Checked per frame: one read can hold thousands of requests, and a peer that does not
            // read its responses must not make the server hold all of their answers at once.
            if heldTotal > shared.configuration.maxOutputBufferBytes {
                pauseReading()
            }
            turnBytes += size + WireProtocol.lengthPrefixSize
            turnFrames += 1
            if turnBytes >= Self.turnBytes || turnFrames >= Self.turnFrames, decoder.bufferedByteCount > 0 {
                yieldTurn()
                break
            }
        }
        if blockingWaitingHead < blockingWaiting.count { startQueuedCalls() }
        let now = arrivalNanos
        if completedAny { lastFrameAt = now }
        // Whole frames left undecoded (reading paused by the byte budget, or the turn yielded)
        // are the server's wait, not a peer's slow frame: only a partial frame is timed.
        if decoder.bufferedByteCount == 0 || decoder.hasCompleteFrame {
            partialFrameSince = nil
        } else if completedAny || partialFrameSince == nil {
            partialFrameSince = now
        }
    }

    /// What became of one frame's payload.
    private enum FrameStep {
        /// A raw fast path took the call (answered, or off the loop).
        case answered
        /// Decoded, for `dispatch`.
        case decoded(Frame)
        case failed(FramingError)
    }

    /// Offers the payload to a raw fast path when it is a request for one; otherwise (or when the
    /// fast path declines) decodes it as `FrameDecoder.nextFrame()` does.
    private func answerOrDecode(_ payload: UnsafeRawBufferPointer, waitsForServer: Bool) -> FrameStep {
        // A large request takes the regular path, which checks it off the loop. Any other the
        // scanner reads goes to its fast path if it has one, else is lifted from the scan.
        if payload.count < shared.configuration.largeRequestBytes, let request = ScannedRequest(frame: payload) {
            if let entry = shared.table.rawFastPaths.entry(forPath: request.method),
               takeRaw(request, entry, waitsForServer: waitsForServer) {
                return .answered
            }
            var frame = Frame()
            frame.callID = request.callID
            frame.kind = .request(request.request())
            return .decoded(frame)
        }
        // A Ping is answered from its bytes: no unpack, no Frame, no pack (what `dispatch` would
        // write, as HotFramesTests checks against protobuf-c). After the request scan, which
        // stops at a ping's first field, where a request frame went through the ping scan's
        // (73 instructions of every call, callgrind): the two scans accept disjoint frames.
        if let ping = HotFrames.scanPing(payload) {
            HotFrames.appendPongFrame(payload: ping, to: &output.bytes)
            return .answered
        }
        do throws(WireDecodingError) {
            let frame = try Frame(decoding: payload)
            return frame.kind == nil ? .failed(.emptyFrame) : .decoded(frame)
        } catch {
            return .failed(.undecodableFrame(error))
        }
    }

    /// Runs a raw fast path when the call passes the checks `handleRequest` makes; returns false
    /// (the frame then takes the regular path, which answers any refusal) otherwise or when the
    /// fast path declines.
    private func takeRaw(_ request: ScannedRequest, _ entry: RawFastPaths.Entry, waitsForServer: Bool) -> Bool {
        let callID = request.callID
        let answers = entry.answers
        // Read in place, so no decoded form: the charge is the bytes a `.later` start keeps.
        let charge = request.message.count + Self.callOverheadBytes
        let reservation = answers.reservation(floor: Self.answerReservationBytes)
        // The rule every call's work starts by, asked before the handler (which may start work):
        // a call that must wait takes the regular path, which queues it.
        guard callID != 0, !goAwaySent,
              inFlight.isEmpty || (inFlight[callID] == nil && inFlight.count < shared.configuration.maxConcurrentCallsPerConnection),
              startsAtOnce(onPool: false, adding: charge, reservation: reservation, waitsForServer: waitsForServer)
        else { return false }
        // Before the handler: the request's bytes are the frame's, valid only until it returns.
        let logEntry = shared.callLog.map { log in
            log.start(method: String(decoding: request.method, as: UTF8.self), metadata: [], message: Array(request.message))
        }
        switch entry.handler(request.message) {
        case .decline:
            return false
        case .response(let body):
            entry.answered(.ok, arrivalNanos: arrivalNanos)
            if callID > highestCallID { highestCallID = callID }
            respond(callID: callID, status: .ok, message: "", body: body)
            if let log = shared.callLog, let logEntry { log.finish(logEntry, status: .ok, peer: peer) }
            return true
        case .later(let start):
            if callID > highestCallID { highestCallID = callID }
            var timeoutNanos = UInt64(request.timeoutMS) &* 1_000_000
            if timeoutNanos == 0 { timeoutNanos = shared.defaultCallTimeoutNanos }
            let deadline = timeoutNanos == 0 ? nil : arrivalNanos &+ timeoutNanos
            let call = InFlightCall(logEntry: logEntry)
            track(callID: callID, call: call, deadline: deadline, timeoutNanos: timeoutNanos)
            heldBytes += charge
            let release = reserveAnswer(charge: charge, reservation: reservation)
            let loop = owner.loop, arrival = arrivalNanos
            start { [self] answer in
                // The answer is computed on the loop (RawCompletion).
                loop.execute {
                    self.workEnded(releasing: release)
                    let outcome = entry.outcome(of: answer, arrivalNanos: arrival)
                    answers.note(outcome.body.count)
                    self.finish(callID: callID, call: call, status: outcome.status, message: outcome.message, body: outcome.body)
                    self.scheduleFlush()
                    self.budgetChanged()
                }
            }
            return true
        }
    }

    /// Answers a request refused before its handler runs (before its method is even looked up)
    /// and gives it its call line, as every answered call has: an operator sees the calls a
    /// shutdown, a duplicate call id or the in-flight limit turned away.
    private func refuse(_ request: Request, callID: UInt32, _ status: StatusCode, _ message: String) {
        respond(callID: callID, status: status, message: message)
        // The path as an answer would quote it: cut, so that a 4 MiB path is not a 4 MiB line.
        // No metadata or message: the application is not named for a call that never ran.
        if let log = shared.callLog {
            log.finish(log.start(method: RPCError.echo(request.method), metadata: [], message: []), status: status, peer: peer)
        }
    }

    private func dispatch(_ frame: Frame) {
        switch frame.kind {
        case .request(let request)?:
            handleRequest(callID: frame.callID, request)
        case .cancel?:
            handleCancel(callID: frame.callID)
        case .ping(let ping)?:
            Frame.pong(ping.payload).encode(appendingTo: &output.bytes, lengthPrefixed: true)
        case .pong?, .settings?, .goAway?, .response?:
            // docs/PROTOCOL.md: ignored from a client (the server sends no pings, and a client's
            // settings, go_away or response carry nothing for it).
            break
        case nil:
            protocolError(.emptyFrame)
        }
    }

    private func handleRequest(callID: UInt32, _ request: Request) {
        guard callID != 0 else {
            return refuse(request, callID: 0, .invalidArgument, "call id 0 is reserved for frames that belong to no call")
        }
        if goAwaySent {
            return refuse(request, callID: callID, .unavailable, "server is shutting down: no calls after \(highestCallID)")
        }
        if inFlight[callID] != nil {
            return refuse(request, callID: callID, .invalidArgument, "call id \(callID) is already in flight")
        }
        if inFlight.count >= shared.configuration.maxConcurrentCallsPerConnection {
            return refuse(request, callID: callID, .resourceExhausted,
                          "too many calls in flight: the limit is \(shared.configuration.maxConcurrentCallsPerConnection) per connection")
        }
        guard let method = shared.table.methods[request.method] else {
            return refuse(request, callID: callID, .unimplemented, "unknown method \(RPCError.echo(request.method))")
        }
        if !clientCertificateVerified, let refusal = shared.table.clientCertificateRefusal(method) {
            respond(callID: callID, status: refusal.code, message: refusal.message)
            return
        }
        let logEntry = shared.callLog.map { $0.start(method: request.method, metadata: request.metadata, message: request.message) }
        if callID > highestCallID { highestCallID = callID }
        var timeoutNanos = UInt64(request.timeoutMS) &* 1_000_000
        if timeoutNanos == 0 { timeoutNanos = shared.defaultCallTimeoutNanos }
        let deadline = timeoutNanos == 0 ? nil : arrivalNanos &+ timeoutNanos
        // Decoding and checking a large request (a CreateMessage of many notifications in many
        // languages) takes milliseconds: on the blocking threads, not on the loop.
        let isLarge = request.message.count >= shared.configuration.largeRequestBytes

        switch method.handler {
        case .onLoop(let handler) where isLarge:
            queueBlocking({ context, bytes, complete in complete(handler(context, bytes)) },
                          callID: callID, request: request, deadline: deadline, timeoutNanos: timeoutNanos,
                          answers: method.answers, isLargeRequest: true)

        case .offLoop(let handler) where isLarge:
            queueBlocking(handler, callID: callID, request: request, deadline: deadline, timeoutNanos: timeoutNanos,
                          answers: method.answers, isLargeRequest: true)

        case .onLoopOrOffLoop(let fast, let slow) where isLarge:
            queueBlocking({ context, bytes, complete in
                if let result = fast(context, bytes) { complete(result) } else { slow(context, bytes, complete) }
            }, callID: callID, request: request, deadline: deadline, timeoutNanos: timeoutNanos, answers: method.answers, isLargeRequest: true)

        case .blocking(let handler):
            queueBlocking(handler, callID: callID, request: request, deadline: deadline, timeoutNanos: timeoutNanos, answers: method.answers)

        case .onLoop(let handler):
            // Cheap work answers inline: no allocation for the call beyond its values, no hop.
            let context = RequestContext(
                callID: callID, method: request.method, metadata: request.metadata, peer: peer,
                arrivalNanos: arrivalNanos, deadlineNanos: deadline, cancellation: nil)
            let result = handler(context, request.message)
            respond(callID: callID, status: result.status, message: result.message, body: result.body)
            if let log = shared.callLog, let logEntry { log.finish(logEntry, status: result.status, peer: peer) }

        case .offLoop(let handler):
            startOffLoop(handler, callID: callID, request: request, deadline: deadline, timeoutNanos: timeoutNanos,
                         answers: method.answers, logEntry: logEntry)

        case .onLoopOrOffLoop(let fast, let slow):
            let context = RequestContext(
                callID: callID, method: request.method, metadata: request.metadata, peer: peer,
                arrivalNanos: arrivalNanos, deadlineNanos: deadline, cancellation: nil)
            if let result = fast(context, request.message) {
                respond(callID: callID, status: result.status, message: result.message, body: result.body)
                if let log = shared.callLog, let logEntry { log.finish(logEntry, status: result.status, peer: peer) }
            } else {
                startOffLoop(slow, callID: callID, request: request, deadline: deadline, timeoutNanos: timeoutNanos,
                             answers: method.answers, logEntry: logEntry)
            }
        }
    }

    /// Tracks the call as in flight, arms its deadline, charges its request and hands it to
    /// `handler` now when the admission rule lets it start (Connection+BlockingCalls.swift), else
    /// queues it; the outcome hops back to this connection's loop.
    private func startOffLoop(
        _ handler: @escaping RegisteredMethod.OffLoopHandler, callID: UInt32, request: Request, deadline: UInt64?, timeoutNanos: UInt64,
        answers: AnswerSizes, logEntry: CallLog.Entry?
    ) {
        let call = InFlightCall(logEntry: logEntry)
        track(callID: callID, call: call, deadline: deadline, timeoutNanos: timeoutNanos)
        let context = RequestContext(
            callID: callID, method: request.method, metadata: request.metadata, peer: peer,
            arrivalNanos: arrivalNanos, deadlineNanos: deadline, cancellation: call.cancellation)
        let message = request.message
        let charge = Self.requestCharge(messageBytes: message.count)
        let reservation = answers.reservation(floor: Self.answerReservationBytes)
        let startsNow = startsAtOnce(onPool: false, adding: charge, reservation: reservation, waitsForServer: mustWaitForServer)
        heldBytes += charge
        notePressure()
        let start: @Sendable (@escaping @Sendable (CallOutcome) -> Void) -> Void = { complete in handler(context, message, complete) }
        if startsNow {
            startOnLoop(start, callID: callID, call: call, charge: charge, answers: answers, reservation: reservation)
        } else {
            // Started by processFrames' call to startQueuedCalls once the batch is decoded, or
            // when the budget next has room.
            enqueue(QueuedCall(callID: callID, call: call, charge: charge, placement: .loop, answers: answers, start: start))
        }
    }

    /// Tracks call `callID` as in flight and arms its deadline.
    func track(callID: UInt32, call: InFlightCall, deadline: UInt64?, timeoutNanos: UInt64) {
        inFlight[callID] = call
        if let deadline {
            let milliseconds = timeoutNanos / 1_000_000
            let isLive = { [weak self, weak call] () -> Bool in
                guard let self, let call else { return false }
                return self.inFlight[callID] === call
            }
            loop.schedule(at: deadline, isLive: isLive) { [weak self, weak call] in
                guard let self, let call else { return }
                self.finish(callID: callID, call: call, status: .deadlineExceeded,
                            message: "deadline of \(milliseconds) ms exceeded", body: [])
            }
        }
    }

    private func handleCancel(callID: UInt32) {
        guard let call = inFlight[callID] else { return }  // unknown or finished: ignored
        finish(callID: callID, call: call, status: .cancelled, message: "cancelled by the client", body: [])
    }

    /// Answers `call` unless something (deadline, Cancel, the result) answered it first.
    func finish(callID: UInt32, call: InFlightCall, status: StatusCode, message: String, body: [UInt8]) {
        guard let current = inFlight[callID], current === call else { return }
        inFlight[callID] = nil
        call.cancellation.set()
        // A blocking call still waiting for the pool is dropped now: it will never start.
        if !queuedByCallID.isEmpty { releaseQueuedCall(callID) }
        respond(callID: callID, status: status, message: message, body: body)
        if let log = shared.callLog, let entry = call.logEntry { log.finish(entry, status: status, peer: peer) }
        scheduleFlush()
        if goAwaySent, inFlight.isEmpty { closeWhenFlushed = true }
    }

    private func respond(callID: UInt32, status: StatusCode, message: String, body: [UInt8] = []) {
        // Never a frame above our own limit: an answer that would be is RESOURCE_EXHAUSTED instead.
        HotFrames.appendResponseFrame(callID: callID, status: status, message: message, body: body,
                                      maxFrameSize: shared.configuration.maxFrameSize, to: &output.bytes)
        notePressure()
    }
}
