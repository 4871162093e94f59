import Foundation
import Synchronization
import PushwireSystem
import PushwireWire

/// One TCP connection to a Pushwire server, multiplexing any number of concurrent calls.
///
/// Calls are matched to responses by call id; a dedicated reader thread blocks in `read(2)`,
/// decodes frames and resumes the waiting calls. Writers append frames to one output buffer under
/// the connection's lock, and the first writer that finds no write in progress writes everything
/// buffered, so concurrent calls coalesce into few `write(2)`s without a thread hop.
///
/// Limits: a call beyond the server's `maxConcurrentCalls` fails at once with RESOURCE_EXHAUSTED
/// (it does not queue), as does a request larger than the server's `maxFrameSize`.
///
/// Call `close()` when done: the reader thread keeps the connection alive until then.
public final class ClientConnection: UnaryCaller, DeadlineTarget {
    /// The address given to `connect`.
    public let address: String
    let fd: Int32
    /// TLS over `fd` (memory BIOs, used under `state`'s lock only); nil in clear text.
    let tls: ClientTLS?
    let state: Mutex<ConnectionState>
    private let nextCallID = Atomic<UInt32>(1)

    /// The largest frame accepted from a server.
    static let maxReceivedFrameSize = 16 * 1024 * 1024

    init(address: String, fd: Int32, settings: ServerSettings, tls: ClientTLS? = nil) {
        self.address = address
        self.fd = fd
        self.tls = tls
        self.state = Mutex(ConnectionState(settings: settings))
    }

    /// The limits the server announced in its Settings frame.
    public var settings: ServerSettings { state.withLock { $0.settings } }

    /// True once the connection takes no new calls: closed, lost, or told to go away.
    public var isClosed: Bool { state.withLock { $0.closed != nil || $0.goAway != nil } }

    /// Why `address` is not a `host:port` or `[v6-address]:port` that `connect` can try (e.g.
    /// `invalid address '127.0.0.1': expected host:port`), or nil when it is; nothing is resolved
    /// or connected, so that a command line can reject it as a usage error.
    public static func addressProblem(_ address: String) -> String? {
        do {
            _ = try HostPort(parsing: address)
            return nil
        } catch {
            return error.message
        }
    }

    /// Connects, exchanges prefaces and reads the server's Settings.
    /// - Parameters:
    ///   - address: `host:port`, `[v6-address]:port`, or a hostname resolved with getaddrinfo;
    ///     `pwires://host:port` for TLS (with `tls`, or the system's trust store without it),
    ///     `pwire://host:port` for clear text.
    ///   - timeout: bounds the TCP connect and the handshakes (TLS, then Pushwire's) together.
    ///   - tls: connect over TLS, verifying the server as these options say (docs/PROTOCOL.md).
    /// - Throws: `RPCError` with `.invalidArgument` for a malformed address, `.unavailable` when
    ///   the server cannot be reached, does not speak Pushwire, or its certificate does not verify
    ///   (the message says why), `.deadlineExceeded` on timeout.
    public static func connect(to target: String, timeout: Duration = .seconds(10), tls: ClientTLSOptions? = nil) async throws -> ClientConnection {
        let (address, wantsTLS) = ClientTLSOptions.target(target)
        let tlsOptions = tls ?? (wantsTLS ? ClientTLSOptions() : nil)
        return try await withUnsafeThrowingContinuation { continuation in
            // The handshake blocks, so it runs on the connection's own reader thread rather than
            // on a cooperative thread; the same thread then reads for the connection's lifetime.
            let thread = Thread {
                var decoder = FrameDecoder(maxFrameSize: maxReceivedFrameSize, expectsPreface: true)
                let connection: ClientConnection
                do {
                    let deadline = ContinuousClock.now + timeout
                    let fd = try Handshake.openSocket(to: address, timeout: timeout)
                    do {
                        var session: ClientTLS?
                        if let tlsOptions {
                            session = try Handshake.startTLS(fd: fd, address: address, options: tlsOptions, deadline: deadline)
                        }
                        let settings = try Handshake.run(fd: fd, decoder: &decoder, deadline: deadline, tls: session)
                        connection = ClientConnection(address: address, fd: fd, settings: settings, tls: session)
                    } catch {
                        Syscall.close(fd)
                        throw error
                    }
                } catch {
                    continuation.resume(throwing: Handshake.rpcError(error, address: address))
                    return
                }
                continuation.resume(returning: connection)
                connection.readLoop(&decoder)
            }
            thread.name = "pushwire-client-reader"
            thread.start()
        }
    }

    /// Closes the connection: every pending call fails with UNAVAILABLE. Idempotent.
    public func close() {
        state.withLock { s in
            if s.closed == nil { s.closed = RPCError(.unavailable, "the connection was closed") }
            // Wakes the reader thread, which fails pending calls and closes the descriptor.
            if !s.fdClosed { Syscall.shutdown(fd) }
        }
    }

    /// Registers `handler` to run once when the connection closes (at once if it already has).
    func onClose(_ handler: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { s -> Bool in
            if s.readerExited { return true }
            s.onClose = handler
            return false
        }
        if runNow { handler() }
    }

    /// Makes a unary call with typed messages.
    /// - Throws: `RPCError`: the server's status; `.deadlineExceeded` when `options.timeout`
    ///   passes; `.cancelled` when the task is cancelled (a Cancel frame is sent);
    ///   `.unavailable` when the connection is lost or going away; `.resourceExhausted` beyond the
    ///   server's concurrency or frame-size limits; `.internalError` for an undecodable response.
    public func call<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        _ request: Request,
        options: CallOptions = CallOptions()
    ) async throws -> Response {
        let reply = try await call(path: method.path, request: request.encode(), options: options)
        do {
            return try Response(decoding: reply)
        } catch {
            throw RPCError(.internalError, "the response of \(method.path) is not a valid \(Response.protoName): \(error)", cause: error)
        }
    }

    /// Makes a unary call with an already encoded request; returns the encoded response. This is
    /// what the CLI and the JSON bridge use, since they know messages only by descriptor.
    /// - Throws: as `call(_:_:options:)`.
    public func call(path: String, request: [UInt8], options: CallOptions = CallOptions()) async throws -> [UInt8] {
        var deadline: ContinuousClock.Instant?
        var timeoutMS: UInt32 = 0
        if let timeout = options.timeout {
            guard timeout > .zero else { throw RPCError(.deadlineExceeded, "the deadline had passed before the call started") }
            deadline = ContinuousClock.now + timeout
            let (seconds, attoseconds) = timeout.components
            // Rounded up so that a sub-millisecond timeout is not sent as 0 ("no deadline").
            timeoutMS = UInt32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        }
        let callID = allocateCallID()
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                let frameSize = request.count + path.utf8.count + options.metadata.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count + 8 } + 24
                start(callID: callID, deadline: deadline, isPing: false, frameSize: frameSize, continuation: continuation) { output in
                    request.withUnsafeBytes { body in
                        HotFrames.appendRequestFrame(
                            callID: callID, method: path, timeoutMS: timeoutMS,
                            metadata: options.metadata, message: body, to: &output)
                    }
                }
            }
        } onCancel: {
            cancel(callID: callID)
        }
    }

    /// Sends a Ping and waits for its Pong.
    /// - Returns: the round-trip time.
    /// - Throws: `RPCError` `.deadlineExceeded` after `timeout`, `.unavailable` if the connection is lost.
    public func ping(timeout: Duration = .seconds(10)) async throws -> Duration {
        let id = allocateCallID()
        let started = ContinuousClock.now
        _ = try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { continuation in
                start(callID: id, deadline: started + timeout, isPing: true, frameSize: 16, continuation: continuation) { output in
                    HotFrames.appendPingFrame(payload: UInt64(id), to: &output)
                }
            }
        } onCancel: {
            cancel(callID: id)
        }
        return started.duration(to: .now)
    }

    private func allocateCallID() -> UInt32 {
        while true {
            let id = nextCallID.wrappingAdd(1, ordering: .relaxed).oldValue
            if id != 0 { return id } // 0 means "no call" on the wire
        }
    }
}
