import PushwireWire

/// How a call ended, ready to be framed: a status, and the encoded response message when OK.
struct CallOutcome: Sendable {
    var status: StatusCode
    var message: String
    var body: [UInt8]

    static func failure(_ error: RPCError) -> CallOutcome {
        CallOutcome(status: error.code, message: error.message, body: [])
    }
}

/// One registered method with its types erased: request bytes in, outcome out. A class: the table
/// hands it out for every call, and one reference is one retain where a struct's copy retained each
/// of its fields (a Health/Check call's largest item after the decode, in `perf`).
final class RegisteredMethod: Sendable {
    enum Handler: Sendable {
        /// Runs on the event loop, inline with the read that delivered the request.
        case onLoop(@Sendable (RequestContext, [UInt8]) -> CallOutcome)
        /// Runs elsewhere (a task or a blocking thread); the outcome hops back to the loop.
        case offLoop(OffLoopHandler)
        /// Tries `fast` on the event loop; when it returns nil, the call goes off the loop to `slow`.
        case onLoopOrOffLoop(fast: @Sendable (RequestContext, [UInt8]) -> CallOutcome?, slow: OffLoopHandler)
        /// Blocks (disk, database): run to its end on a thread of the server's `BlockingPool`,
        /// queued fairly with the other connections' blocking calls.
        case blocking(OffLoopHandler)
    }

    /// Request bytes in; the outcome is handed to the completion, from any thread.
    typealias OffLoopHandler = @Sendable (RequestContext, [UInt8], @escaping @Sendable (CallOutcome) -> Void) -> Void

    let descriptor: AnyMethodDescriptor
    let handler: Handler
    /// The method's largest answer so far, for the byte budget's answer reservation.
    let answers: AnswerSizes

    init(descriptor: AnyMethodDescriptor, handler: Handler, answers: AnswerSizes = AnswerSizes()) {
        self.descriptor = descriptor
        self.handler = handler
        self.answers = answers
    }
}

/// Decodes the request bytes as `Request`; a failure is the INVALID_ARGUMENT outcome of the call.
@inline(__always)
func decodeRequest<Request: WireMessage>(_ type: Request.Type, _ bytes: [UInt8]) -> Result<Request, RPCError> {
    // Straight to the protocol requirement on the raw bytes: the `[UInt8]` convenience is an
    // unspecialized generic across modules, which cost more than the decoding itself in profiles.
    var result = Result<Request, RPCError>.failure(RPCError(.internalError, "request not decoded"))
    bytes.withUnsafeBytes { raw in
        do throws(WireDecodingError) {
            result = .success(try Request(decoding: raw))
        } catch {
            result = .failure(RPCError(.invalidArgument, "request does not decode as \(Request.protoName): \(error.message)", cause: error))
        }
    }
    return result
}

@inline(__always)
func outcome<Response: WireMessage>(_ result: Result<Response, RPCError>) -> CallOutcome {
    switch result {
    case .success(let response): CallOutcome(status: .ok, message: "", body: response.encode())
    case .failure(let error): .failure(error)
    }
}

/// The server's methods, keyed by path; frozen when the server starts and then shared, read-only,
/// by every loop (so dispatch needs no lock).
final class MethodTable: Sendable {
    let methods: [String: RegisteredMethod]
    /// The fully qualified names of the services with at least one method.
    let serviceNames: Set<String>
    /// The raw fast paths, each in front of one of `methods`.
    let rawFastPaths: RawFastPaths
    /// Services whose calls need a verified TLS client certificate
    /// (`ServerConfiguration.clientCertificateServices`).
    let clientCertificateServices: Set<String>

    /// - Parameter callMetrics: where the raw fast paths count the calls they answer (the
    ///   methods' handlers come wrapped by `InstrumentedMethods` already); nil: not counted.
    init(_ methods: [String: RegisteredMethod], rawFastPaths: [String: RawFastPathHandler] = [:], callMetrics: CallMetrics? = nil,
         clientCertificateServices: Set<String> = []) {
        self.methods = methods
        serviceNames = Set(methods.values.map(\.descriptor.service))
        self.clientCertificateServices = clientCertificateServices
        // A fast path may only stand in front of a registered method: a declined call needs it.
        // None for a method behind a client certificate: the check is made before the handler.
        self.rawFastPaths = RawFastPaths(rawFastPaths.compactMap { path, handler -> RawFastPaths.Entry? in
            guard let method = methods[path], !clientCertificateServices.contains(method.descriptor.service) else { return nil }
            let counter = callMetrics.flatMap { metrics in metrics.index(of: path).map { RawFastPaths.CallCounter(metrics: metrics, index: $0) } }
            return RawFastPaths.Entry(path: Array(path.utf8), handler: handler.call, answers: method.answers, counter: counter)
        })
    }

    /// The answer to a call of `method` on a connection without a verified client certificate,
    /// when its service needs one; nil when it does not.
    func clientCertificateRefusal(_ method: RegisteredMethod) -> RPCError? {
        guard clientCertificateServices.contains(method.descriptor.service) else { return nil }
        return RPCError(.permissionDenied, "\(method.descriptor.service) needs a TLS client certificate signed by the server's client CA")
    }

    /// Every path with its message names, sorted by path (what Reflection lists).
    var sortedDescriptors: [AnyMethodDescriptor] {
        methods.values.map(\.descriptor).sorted { $0.path < $1.path }
    }
}

extension RegisteredMethod {
    static func sync<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        _ body: @escaping @Sendable (RequestContext, Request) throws(RPCError) -> Response
    ) -> RegisteredMethod {
        RegisteredMethod(descriptor: method.erased, handler: .onLoop { context, bytes in
            switch decodeRequest(Request.self, bytes) {
            case .failure(let error): return .failure(error)
            case .success(let request):
                do throws(RPCError) {
                    return outcome(.success(try body(context, request)))
                } catch {
                    return .failure(error)
                }
            }
        })
    }

    /// A handler whose `fast` path answers on the loop when it can (returns a response) and whose
    /// `slow` path runs in a task otherwise (`fast` returned nil).
    static func withFallback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        fast: @escaping @Sendable (RequestContext, Request) throws(RPCError) -> Response?,
        slow: @escaping @Sendable (RequestContext, Request) async throws(RPCError) -> Response
    ) -> RegisteredMethod {
        RegisteredMethod(descriptor: method.erased, handler: .onLoopOrOffLoop(
            fast: { context, bytes in
                switch decodeRequest(Request.self, bytes) {
                case .failure(let error): return .failure(error)
                case .success(let request):
                    do throws(RPCError) {
                        guard let response = try fast(context, request) else { return nil }
                        return outcome(.success(response))
                    } catch {
                        return .failure(error)
                    }
                }
            },
            slow: inTask(slow)))
    }

    static func async<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        _ body: @escaping @Sendable (RequestContext, Request) async throws(RPCError) -> Response
    ) -> RegisteredMethod {
        RegisteredMethod(descriptor: method.erased, handler: .offLoop(inTask(body)))
    }

    /// An off-loop handler that decodes on the loop (a failure is answered at once, without a task)
    /// and runs `body` in a task.
    private static func inTask<Request: WireMessage, Response: WireMessage>(
        _ body: @escaping @Sendable (RequestContext, Request) async throws(RPCError) -> Response
    ) -> OffLoopHandler {
        { context, bytes, complete in
            switch decodeRequest(Request.self, bytes) {
            case .failure(let error): complete(.failure(error))
            case .success(let request):
                Task {
                    // Cancelled or past its deadline while the task waited for a thread: its
                    // answer is already sent and the result would be dropped, so do no work.
                    if context.isCancelled {
                        complete(.failure(RPCError(.cancelled, "cancelled before it started")))
                        return
                    }
                    do throws(RPCError) {
                        complete(outcome(.success(try await body(context, request))))
                    } catch {
                        complete(.failure(error))
                    }
                }
            }
        }
    }

    /// A handler that starts on the event loop and answers later through its completion, from
    /// any thread (the store's syncer, once a commit is durable): no task, no continuation.
    static func callback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        _ body: @escaping @Sendable (RequestContext, Request, @escaping @Sendable (Result<Response, RPCError>) -> Void) -> Void
    ) -> RegisteredMethod {
        RegisteredMethod(descriptor: method.erased, handler: .offLoop { context, bytes, complete in
            switch decodeRequest(Request.self, bytes) {
            case .failure(let error): complete(.failure(error))
            case .success(let request): body(context, request) { result in complete(outcome(result)) }
            }
        })
    }

    static func blocking<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        _ body: @escaping @Sendable (RequestContext, Request) throws(RPCError) -> Response
    ) -> RegisteredMethod {
        // Blocking work (disk, database) must not stall a loop nor the cooperative pool: the
        // connection hands this to the server's blocking pool, which runs it to its end.
        RegisteredMethod(descriptor: method.erased, handler: .blocking { context, bytes, complete in
            switch decodeRequest(Request.self, bytes) {
            case .failure(let error): complete(.failure(error))
            case .success(let request):
                do throws(RPCError) {
                    complete(outcome(.success(try body(context, request))))
                } catch {
                    complete(.failure(error))
                }
            }
        })
    }
}
