import PushwireSystem
import PushwireWire

extension ClientConnection {
    /// How much free buffer each read(2) gets: large enough to take many responses at once.
    var readChunk: Int { 64 * 1024 }

    /// The reader thread's loop: decode every whole frame buffered, act on them under one lock
    /// acquisition, resume the calls outside the lock, then read more.
    func readLoop(_ decoder: inout FrameDecoder) {
        var frames: [InboundFrame] = []
        var resumes: [(CallContinuation, Result<[UInt8], any Error>)] = []
        var cipher = tls == nil ? [] : [UInt8](repeating: 0, count: readChunk)
        let failure: RPCError
        while true {
            do {
                while let frame = try decoder.nextFrame() {
                    frames.append(InboundFrame(frame))
                }
            } catch {
                failure = RPCError(.unavailable, "protocol error from the server: \(error)", cause: error)
                break
            }
            if !frames.isEmpty {
                handle(frames, resumes: &resumes)
                frames.removeAll(keepingCapacity: true)
                for (continuation, result) in resumes { continuation.resume(with: result) }
                resumes.removeAll(keepingCapacity: true)
            }
            let count: Int
            do {
                count = try decoder.withWritableTail(minimumCapacity: readChunk) { buffer in
                    if let tls { return try readDecrypted(tls, into: buffer, cipher: &cipher) }
                    return try Syscall.blockingRead(fd, into: buffer)
                }
            } catch {
                failure = RPCError(.unavailable, "connection lost: \(error)", cause: error)
                break
            }
            if count == 0 {
                failure = RPCError(.unavailable, "the server closed the connection")
                break
            }
        }
        finish(failure)
    }

    /// Reads ciphertext from the socket (outside the lock: it blocks) and decrypts it under the
    /// lock, until some plaintext comes out; 0 at the end of the stream. What OpenSSL has to send
    /// back (a key update's answer) goes out through the writer, in order with the calls' records.
    private func readDecrypted(_ tls: ClientTLS, into buffer: UnsafeMutableRawBufferPointer, cipher: inout [UInt8]) throws -> Int {
        var fed = 0
        while true {
            var flush = false
            let opened = try state.withLock { s throws(ClientTLS.Failure) -> ClientTLS.Opened in
                if fed > 0 { cipher.withUnsafeBytes { tls.feed(UnsafeRawBufferPointer(rebasing: $0[0..<fed])) } }
                let opened = try tls.open(into: buffer)
                if tls.hasPendingOutput, !s.flushing { s.flushing = true; flush = true }
                return opened
            }
            if flush { flushOutput() }
            switch opened {
            case .bytes(let count): return count
            case .closed: return 0
            case .needsInput: break
            }
            fed = try cipher.withUnsafeMutableBytes { try Syscall.blockingRead(fd, into: $0) }
            if fed == 0 { return 0 }
        }
    }

    private func handle(_ frames: [InboundFrame], resumes: inout [(CallContinuation, Result<[UInt8], any Error>)]) {
        var flush = false
        state.withLock { s in
            for frame in frames {
                switch frame {
                case .response(let callID, let code, let message, let body):
                    guard let pending = s.pending[callID], !pending.isPing else { continue }
                    s.pending[callID] = nil
                    s.callsInFlight -= 1
                    resumes.append((pending.continuation, code == .ok ? .success(body) : .failure(RPCError(code, message))))
                case .streamItem:
                    continue // v1 methods are unary; streamed items are reserved
                case .ping(let payload):
                    HotFrames.appendPongFrame(payload: payload, to: &s.output)
                    if !s.flushing { s.flushing = true; flush = true }
                case .pong(let payload):
                    let id = UInt32(truncatingIfNeeded: payload)
                    guard let pending = s.pending[id], pending.isPing else { continue }
                    s.pending[id] = nil
                    resumes.append((pending.continuation, .success([])))
                case .goAway(let lastCallID, let code, let message):
                    let reason = code == .ok ? "the server is shutting down" : "the server is closing the connection: \(code.name): \(message)"
                    let error = RPCError(.unavailable, reason)
                    s.goAway = error
                    for (id, pending) in s.pending where !pending.isPing && id > lastCallID {
                        s.pending[id] = nil
                        s.callsInFlight -= 1
                        resumes.append((pending.continuation, .failure(error)))
                    }
                case .settings(let settings):
                    s.settings = settings
                case .unexpected:
                    continue // a kind only clients send; nothing to do with it
                }
            }
        }
        if flush { flushOutput() }
    }

    /// Fails every pending call, closes the socket (now or when the last write ends) and tells
    /// the pool.
    private func finish(_ failure: RPCError) {
        let (error, pending, onClose) = state.withLock { s in
            if s.closed == nil { s.closed = failure }
            s.readerExited = true
            closeDescriptorIfDone(&s)
            let handler = s.onClose
            s.onClose = nil
            return (s.closed ?? failure, s.takeAllPending(), handler)
        }
        for continuation in pending { continuation.resume(throwing: error) }
        onClose?()
    }
}
