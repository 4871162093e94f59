import PushwireWire

/// Wraps every registered handler so that each answer is counted in `CallMetrics`, whichever
/// door the call came through: the handlers are the one place every decoded call passes, so
/// neither door's connection code needs to know about them. A raw fast path's answers are
/// counted by the door that answers them (`RawFastPaths.Entry.answered`): wrapped, every `.later`
/// call paid three closures around its completion. A call's duration
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
}
