#if canImport(Glibc)
import Glibc
#endif
import PushwireWire
import Synchronization

/// One request's answer-to-be, handed to a route's handler: answer it once with `respond`,
/// from any thread, and call the server's methods with `call` on the way. A second answer (or
/// one after the deadline or the connection's end answered it) is dropped.
public final class HTTPExchange: Sendable {
    private enum State {
        /// The handler is running inline on the loop: an answer is kept for the connection.
        case dispatching
        /// The handler returned without answering: an answer hops to the loop.
        case waiting
        case answered(HTTPResponse?)
    }

    typealias Invoke = @Sendable (
        _ path: String, _ message: [UInt8], _ metadata: [Metadata], _ cancellation: CancellationFlag, _ deadline: UInt64?,
        _ done: @escaping @Sendable (CallOutcome) -> Void) -> Void

    private let state = Mutex<State>(.dispatching)
    private let deadline = Mutex<UInt64?>(nil)
    private let loop: EventLoop
    /// The loop's thread (the exchange is made there): calls made on it run at once.
    private let loopThread: pthread_t
    private let deliver: @Sendable (HTTPResponse) -> Void
    private let invoke: Invoke
    let cancellation = CancellationFlag()

    init(loop: EventLoop, deliver: @escaping @Sendable (HTTPResponse) -> Void, invoke: @escaping Invoke) {
        self.loop = loop
        loopThread = pthread_self()
        self.deliver = deliver
        self.invoke = invoke
    }

    private var onLoopThread: Bool { pthread_equal(pthread_self(), loopThread) != 0 }

    /// Gives the request a deadline: when it passes before an answer, `answer` is sent, the
    /// calls made through `call` are cancelled, and later answers are dropped. Calls started
    /// after this carry the deadline to their handlers.
    public func setDeadline(after duration: Duration, answer: @autoclosure @escaping @Sendable () -> HTTPResponse) {
        let at = monotonicNanos() &+ duration.nanoseconds
        deadline.withLock { $0 = at }
        let arm: @Sendable () -> Void = { [loop] in
            loop.schedule(at: at, isLive: { [weak self] in self.map { !$0.isAnswered } ?? false }) { [weak self] in
                guard let self, !self.isAnswered else { return }
                self.cancellation.set()
                self.respond(answer())
            }
        }
        if onLoopThread { arm() } else { loop.execute(arm) }
    }

    private var isAnswered: Bool {
        state.withLock { if case .answered = $0 { return true } else { return false } }
    }

    /// Answers the request. Callable once from any thread; later calls are ignored.
    public func respond(_ response: HTTPResponse) {
        let hop = state.withLock { state -> Bool in
            switch state {
            case .dispatching:
                state = .answered(response)
                return false
            case .waiting:
                state = .answered(nil)
                return true
            case .answered:
                return false
            }
        }
        if hop {
            cancellation.set()
            deliver(response)
        }
    }

    /// Calls method `path` of the server (e.g. `/pushwire.v1.Devices/RegisterDevice`) with an
    /// encoded request, as the binary door would, with `metadata` (e.g. `authorization`);
    /// `completion` gets the encoded response or the call's error, on the connection's loop.
    public func call(
        _ path: String, message: [UInt8], metadata: [Metadata] = [],
        completion: @escaping @Sendable (Result<[UInt8], RPCError>) -> Void
    ) {
        let done: @Sendable (CallOutcome) -> Void = { outcome in
            if outcome.status == .ok {
                completion(.success(outcome.body))
            } else {
                completion(.failure(RPCError(outcome.status, outcome.message)))
            }
        }
        let at = deadline.withLock { $0 }
        if onLoopThread {
            invoke(path, message, metadata, cancellation, at, done)
        } else {
            loop.execute { [invoke, cancellation] in invoke(path, message, metadata, cancellation, at, done) }
        }
    }

    /// Calls a method from the method table with the outcome as the runtime keeps it (loop
    /// thread only; used by the Connect route, which writes the outcome's status itself).
    func callRaw(_ path: String, message: [UInt8], metadata: [Metadata], completion: @escaping @Sendable (CallOutcome) -> Void) {
        invoke(path, message, metadata, cancellation, deadline.withLock { $0 }, completion)
    }

    /// Whether the answer is no longer wanted (deadline passed, connection closed).
    public var isCancelled: Bool { cancellation.isSet }

    /// Called by the connection once the handler returned: the answer given inline, if any;
    /// from then on answers hop to the loop.
    func endDispatch() -> HTTPResponse? {
        state.withLock { state in
            switch state {
            case .dispatching:
                state = .waiting
                return nil
            case .answered(let response):
                state = .answered(nil)
                return response
            case .waiting:
                return nil
            }
        }
    }
}

/// Answers one HTTP request for a route: reads `request`, answers through `exchange`.
/// Runs on the connection's event loop: do nothing blocking here; call methods with
/// `exchange.call`, which may answer later from another thread.
public typealias HTTPRouteHandler = @Sendable (_ request: HTTPRequest, _ exchange: HTTPExchange) -> Void
