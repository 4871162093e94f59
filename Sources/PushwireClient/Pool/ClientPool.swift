import Synchronization
import PushwireWire

/// A small pool of connections to one server, used round-robin.
///
/// Each connection is re-established in the background after it is lost, with exponential
/// backoff. A call made while no connection is up waits for one until its deadline (or the
/// pool's `connectTimeout` when it has none), then fails with UNAVAILABLE. A call in flight on a
/// connection that is lost fails with UNAVAILABLE and is not retried: the pool cannot know
/// whether the server acted on it.
///
/// Call `close()` when done: until then the pool keeps reconnecting.
public final class ClientPool: UnaryCaller {
    private enum Slot: Sendable {
        case connected(ClientConnection)
        case connecting
    }

    private struct State: Sendable {
        var slots: [Slot]
        var lastError: RPCError?
        var closed = false
    }

    /// The server address.
    public let address: String
    /// How long one connection attempt, and a call waiting for a connection, may take.
    public let connectTimeout: Duration
    /// The reconnect policy.
    public let backoff: Backoff
    /// TLS for every connection; nil: clear text (unless `address` is `pwires://…`).
    public let tls: ClientTLSOptions?
    private let state: Mutex<State>
    private let nextSlot = Atomic<Int>(0)

    /// Creates a pool and starts connecting in the background; calls wait for the first
    /// connection (see the type's description).
    /// - Parameters:
    ///   - address: `host:port` or `[v6]:port`.
    ///   - connections: how many connections (at least 1).
    ///   - connectTimeout: bounds each connection attempt and the wait of a call without deadline.
    ///   - backoff: the delays between reconnect attempts.
    ///   - tls: connect over TLS, verifying the server as these say (see `ClientConnection.connect`).
    public init(address: String, connections: Int = 4, connectTimeout: Duration = .seconds(5), backoff: Backoff = Backoff(),
                tls: ClientTLSOptions? = nil) {
        self.address = address
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.backoff = backoff
        let count = max(1, connections)
        state = Mutex(State(slots: Array(repeating: .connecting, count: count)))
        for index in 0..<count { reconnect(slot: index, firstAttemptNow: true) }
    }

    /// Closes every connection and stops reconnecting; pending calls fail with UNAVAILABLE.
    public func close() {
        let connections = state.withLock { s -> [ClientConnection] in
            s.closed = true
            return s.slots.compactMap { if case .connected(let c) = $0 { c } else { nil } }
        }
        for connection in connections { connection.close() }
    }

    /// How many connections are up now.
    public var connectedCount: Int {
        state.withLock { s in s.slots.filter { if case .connected(let c) = $0 { !c.isClosed } else { false } }.count }
    }

    /// Makes a unary call on the next connection that is up.
    /// - Throws: as `ClientConnection.call`; `.unavailable` when no connection came up in time.
    public func call<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        _ request: Request,
        options: CallOptions = CallOptions()
    ) async throws -> Response {
        let connection = try await connection(waitingUpTo: options.timeout ?? connectTimeout)
        return try await connection.call(method, request, options: options)
    }

    /// Makes a unary call with an encoded request on the next connection that is up.
    /// - Throws: as `ClientConnection.call(path:request:options:)`.
    public func call(path: String, request: [UInt8], options: CallOptions = CallOptions()) async throws -> [UInt8] {
        let connection = try await connection(waitingUpTo: options.timeout ?? connectTimeout)
        return try await connection.call(path: path, request: request, options: options)
    }

    /// The next connection that is up, round-robin, waiting for one up to `wait`.
    /// - Throws: `RPCError` `.unavailable` when none came up in time or the pool is closed,
    ///   `.cancelled` when the task is cancelled while waiting.
    public func connection(waitingUpTo wait: Duration) async throws -> ClientConnection {
        let deadline = ContinuousClock.now + wait
        while true {
            let start = nextSlot.wrappingAdd(1, ordering: .relaxed).oldValue
            let (found, lastError, closed) = state.withLock { s -> (ClientConnection?, RPCError?, Bool) in
                let count = s.slots.count
                for offset in 0..<count {
                    let index = (start &+ offset) % count
                    if case .connected(let connection) = s.slots[(index + count) % count], !connection.isClosed {
                        return (connection, nil, s.closed)
                    }
                }
                return (nil, s.lastError, s.closed)
            }
            if closed { throw RPCError(.unavailable, "the pool was closed") }
            if let found { return found }
            if ContinuousClock.now >= deadline {
                let reason = lastError.map { ": \($0.message)" } ?? ""
                throw RPCError(.unavailable, "no connection to \(address)\(reason)", cause: lastError)
            }
            // Outages are rare and short-lived compared with calls: polling keeps this simple.
            do {
                try await Task.sleep(for: .milliseconds(5))
            } catch {
                throw RPCError(.cancelled, "the call was cancelled while waiting for a connection", cause: error)
            }
        }
    }

    private func reconnect(slot index: Int, firstAttemptNow: Bool) {
        Task { [self] in
            var attempt = firstAttemptNow ? -1 : 0
            while true {
                if attempt >= 0 { try? await Task.sleep(for: backoff.delay(attempt: attempt)) }
                attempt += 1
                if state.withLock({ $0.closed }) { return }
                do {
                    let connection = try await ClientConnection.connect(to: address, timeout: connectTimeout, tls: tls)
                    let closedMeanwhile = state.withLock { s -> Bool in
                        if s.closed { return true }
                        s.slots[index] = .connected(connection)
                        return false
                    }
                    if closedMeanwhile {
                        connection.close()
                        return
                    }
                    connection.onClose { [weak self] in self?.lost(connection, slot: index) }
                    return
                } catch {
                    let rpcError = error as? RPCError ?? RPCError(.unavailable, "\(error)", cause: error)
                    state.withLock { $0.lastError = rpcError }
                }
            }
        }
    }

    private func lost(_ connection: ClientConnection, slot index: Int) {
        let shouldReconnect = state.withLock { s -> Bool in
            guard !s.closed, case .connected(let current) = s.slots[index], current === connection else { return false }
            s.slots[index] = .connecting
            return true
        }
        if shouldReconnect { reconnect(slot: index, firstAttemptNow: false) }
    }
}
