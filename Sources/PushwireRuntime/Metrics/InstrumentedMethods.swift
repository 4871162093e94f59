import PushwireWire

/// Wraps every registered handler and raw fast path so that each answer is counted in
/// `CallMetrics`, whichever door the call came through: the handlers are the one place every
/// call passes, so neither door's connection code needs to know about metrics. A call's duration
/// runs from its request's arrival (`RequestContext.arrivalNanos`, the loop's wake-up) to its
/// answer: one clock read per call, at the end (a read at the start as well was 4 % of a
/// SyncCategories call's samples).
enum InstrumentedMethods {
    static func wrap(_ methods: [String: RegisteredMethod], metrics: CallMetrics) -> [String: RegisteredMethod] {
        methods.mapValues { method in
            guard let index = metrics.index(of: method.descriptor.path) else { return method }
            return RegisteredMethod(descriptor: method.descriptor, handler: wrap(method.handler, index: index, metrics: metrics),
                                    answers: method.answers)
        }
    }

    private static func wrap(_ handler: RegisteredMethod.Handler, index: Int, metrics: CallMetrics) -> RegisteredMethod.Handler {
        switch handler {
        case .onLoop(let body):
            return .onLoop { context, bytes in
                let outcome = body(context, bytes)
                metrics.record(index, status: outcome.status, nanos: monotonicNanos() &- context.arrivalNanos)
                return outcome
            }
        case .offLoop(let body):
            return .offLoop(wrap(body, index: index, metrics: metrics))
        case .blocking(let body):
            return .blocking(wrap(body, index: index, metrics: metrics))
        case .onLoopOrOffLoop(let fast, let slow):
            return .onLoopOrOffLoop(
                fast: { context, bytes in
                    guard let outcome = fast(context, bytes) else { return nil }
                    metrics.record(index, status: outcome.status, nanos: monotonicNanos() &- context.arrivalNanos)
                    return outcome
                },
                slow: wrap(slow, index: index, metrics: metrics))
        }
    }

    private static func wrap(_ body: @escaping RegisteredMethod.OffLoopHandler, index: Int, metrics: CallMetrics) -> RegisteredMethod.OffLoopHandler {
        { context, bytes, complete in
            // Only the arrival time kept for the answer: the whole context in the completion's
            // closure retained and released its method, metadata, peer and cancellation again.
            let arrivalNanos = context.arrivalNanos
            body(context, bytes) { outcome in
                metrics.record(index, status: outcome.status, nanos: monotonicNanos() &- arrivalNanos)
                complete(outcome)
            }
        }
    }

    static func wrap(_ fastPaths: [String: RawFastPathHandler], metrics: CallMetrics) -> [String: ArrivedRawFastPathHandler] {
        var wrapped: [String: ArrivedRawFastPathHandler] = [:]
        for (path, fastPath) in fastPaths {
            let handler = fastPath.call
            guard let index = metrics.index(of: path) else {
                wrapped[path] = ArrivedRawFastPathHandler { message, _ in handler(message) }
                continue
            }
            wrapped[path] = ArrivedRawFastPathHandler { message, start in
                switch handler(message) {
                case .decline:
                    return .decline  // the registered handler answers, and counts, the call
                case .response(let body):
                    metrics.record(index, status: .ok, nanos: monotonicNanos() &- start)
                    return .response(body)
                case .later(let begin):
                    return .later { complete in
                        begin { answer in
                            complete {
                                let result = answer()
                                let status: StatusCode
                                switch result {
                                case .success: status = .ok
                                case .failure(let error): status = error.code
                                }
                                metrics.record(index, status: status, nanos: monotonicNanos() &- start)
                                return result
                            }
                        }
                    }
                }
            }
        }
        return wrapped
    }
}
