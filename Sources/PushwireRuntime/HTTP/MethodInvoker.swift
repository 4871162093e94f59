import PushwireWire

/// Runs one call of the server's method table for the HTTP door, exactly as the binary door
/// would: the raw fast path first when the method has one, then the registered handler (on the
/// loop, off it, or on the loop with a fallback). Loop thread only; `completion` runs on the loop.
enum MethodInvoker {
    static func invoke(
        _ table: MethodTable, loop: EventLoop, path: String, message: [UInt8], metadata: [Metadata], peer: SocketAddress,
        clientCertificateVerified: Bool, deadline: UInt64?, cancellation: CancellationFlag, completion: @escaping @Sendable (CallOutcome) -> Void
    ) {
        guard let method = table.methods[path] else {
            completion(.failure(RPCError(.unimplemented, "unknown method \(path)")))
            return
        }
        // Only a TLS connection whose client certificate verified reaches the services behind one.
        if !clientCertificateVerified, let refusal = table.clientCertificateRefusal(method) {
            completion(.failure(refusal))
            return
        }
        let arrival = monotonicNanos()
        if let fast = Array(path.utf8).withUnsafeBytes({ table.rawFastPaths.entry(forPath: $0) }) {
            switch message.withUnsafeBytes({ fast.handler($0) }) {
            case .decline:
                break
            case .response(let body):
                fast.answered(.ok, arrivalNanos: arrival)
                completion(CallOutcome(status: .ok, message: "", body: body))
                return
            case .later(let start):
                start { answer in
                    loop.execute { completion(fast.outcome(of: answer, arrivalNanos: arrival)) }
                }
                return
            }
        }
        let context = RequestContext(callID: 1, method: path, metadata: metadata, peer: peer, arrivalNanos: arrival, deadlineNanos: deadline,
                                     cancellation: cancellation)
        switch method.handler {
        case .onLoop(let handler):
            completion(handler(context, message))
        case .offLoop(let handler):
            handler(context, message) { outcome in loop.execute { completion(outcome) } }
        case .onLoopOrOffLoop(let fast, let slow):
            if let outcome = fast(context, message) {
                completion(outcome)
            } else {
                slow(context, message) { outcome in loop.execute { completion(outcome) } }
            }
        case .blocking(let handler):
            // Off the loop, on threads for the HTTP door's blocking calls (each call its own lane);
            // a call cancelled before its turn does not run.
            BlockingPool.httpDoor.submit({
                if cancellation.isSet {
                    loop.execute { completion(.failure(RPCError(.cancelled, "cancelled before it started"))) }
                    return
                }
                handler(context, message) { outcome in loop.execute { completion(outcome) } }
            }, to: BlockingPool.Lane())
        }
    }
}
