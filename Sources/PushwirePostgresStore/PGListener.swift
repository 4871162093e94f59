import Foundation
import Glibc
import PushwireStore
import PushwireSystem
import Synchronization

/// The change feed's receiving side: a thread with a connection of its own that `LISTEN`s on
/// `PGChangeFeed.channel` and hands each notification another store object sent (another
/// server's) to the observer, in the order PostgreSQL delivers them (commit order).
///
/// No change may be left unseen for good: while idle the thread checks its connection (an empty
/// query after `idleCheck`, answered within `checkTimeout` or the connection counts as lost), and
/// when the connection is lost (the server restarted, `pg_terminate_backend`, the network) it
/// reconnects with backoff (50 ms doubling to 2 s) and then reports `.everything`, since what was
/// committed meanwhile was not delivered to it.
final class PGListener: @unchecked Sendable {
    // @unchecked: `connection` is touched only by the listener's own thread (and by `init`
    // before that thread starts); the shared state is behind a Mutex; the rest is immutable.
    private struct State {
        var observer: (@Sendable (StoreChange) -> Void)?
        /// Changes received before an observer was set.
        var pending: [StoreChange] = []
        var closed = false
        /// The server process of the current connection (0 while disconnected).
        var backendPID: Int32 = 0
        /// Connections opened after the first.
        var reconnects = 0
    }

    private let url: String
    private let origin: String
    private let state = Mutex(State())
    /// Held while the observer runs (not `state`'s lock, so that the observer may ask the
    /// listener or the store anything — `backendPID`, `close` — without deadlocking on it): the
    /// observer sees changes one at a time and in order.
    private let delivering = Mutex(())
    /// A pipe whose read end the thread polls beside the socket: `close` writes to it.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private var connection: PGConnection?
    private let thread = WorkerThread(name: "pw-pg-listener")
    /// The thread's `pthread_self()` once it runs (0 before): `close` on it does not wait for itself.
    private let threadID = Atomic<UInt>(0)

    /// Changes kept for an observer not set yet; past it they collapse into `.everything`.
    static let pendingLimit = 10_000
    /// How long the connection may stay silent before it is checked.
    static let idleCheck: TimeInterval = 1
    /// How long a check may wait for its answer before the connection counts as lost.
    static let checkTimeout: TimeInterval = 2

    /// Connects and LISTENs before returning, so that every change committed from then on is
    /// delivered (or, after a lost connection, covered by `.everything`).
    /// - Parameter origin: this store object's origin; its own notifications are skipped.
    init(url: String, origin: String) throws(StoreError) {
        self.url = url
        self.origin = origin
        var fds: [Int32] = [-1, -1]
        // (pipe2 is not in Swift's Glibc module: the flags are set after.)
        guard pipe(&fds) == 0 else {
            throw .cannotOpen(location: PostgresStore.redacted(url), reason: "cannot create the listener's pipe (errno \(errno))")
        }
        (wakeRead, wakeWrite) = (fds[0], fds[1])
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        do {
            let opened = try PGListener.open(url)
            connection = opened
            state.withLock { $0.backendPID = opened.backendPID }
        } catch {
            // Every stored property is set: `deinit` runs and closes the pipe (closing it here
            // too would close whatever file took its numbers meanwhile).
            throw .openFailure(PostgresStore.redacted(url), error.message)
        }
        do {
            try thread.start { [self] in loop() }
        } catch {
            connection = nil
            throw .openFailure(PostgresStore.redacted(url), "cannot start the change feed's thread: \(error)")
        }
    }

    /// Whether the caller runs on the listener's thread (which cannot wait for itself).
    var isCurrentThread: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// The application_name of listening connections, so that an operator (or a test) can
    /// tell them apart in `pg_stat_activity`: with the server's pid.
    static var applicationName: String { "pushwired-listener-\(getpid())" }

    private static func open(_ url: String) throws(PGError) -> PGConnection {
        let connection = try PGConnection(url: url, connectTimeout: PGWorker.connectTimeout, applicationName: applicationName)
        try connection.execute("LISTEN \(PGChangeFeed.channel)")
        return connection
    }

    /// Sets the observer (replacing any), first handing it what arrived before.
    func observe(_ observer: @escaping @Sendable (StoreChange) -> Void) {
        delivering.withLock { _ in
            let pending = state.withLock { state in
                defer { state.pending = [] }
                state.observer = observer
                return state.pending
            }
            for change in pending { observer(change) }
        }
    }

    /// The listening connection's server process id (0 while disconnected).
    var backendPID: Int32 { state.withLock { $0.backendPID } }

    /// How many times the listener connected again after losing its connection.
    var reconnects: Int { state.withLock { $0.reconnects } }

    /// How many changes arrived before there was an observer and are kept for it.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Stops the thread and closes the connection; waits for it unless called on it.
    func close() {
        let wasClosed = state.withLock { state in
            defer {
                state.closed = true
                // The observer may hold what holds the store: let go of it.
                state.observer = nil
                state.pending = []
            }
            return state.closed
        }
        if wasClosed { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        if isCurrentThread { return }
        thread.join()
    }

    deinit {
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    /// Hands a change to the observer, or keeps it until there is one. Under `delivering`, so
    /// that the observer sees changes one at a time and in order.
    private func emit(_ change: StoreChange) {
        delivering.withLock { _ in
            let observer = state.withLock { state -> (@Sendable (StoreChange) -> Void)? in
                if state.closed { return nil }
                if let observer = state.observer { return observer }
                if state.pending.count >= PGListener.pendingLimit || state.pending.last == .everything {
                    state.pending = [.everything]
                } else {
                    state.pending.append(change)
                }
                return nil
            }
            observer?(change)
        }
    }

    private var isClosed: Bool { state.withLock { $0.closed } }

    private func loop() {
        threadID.store(UInt(pthread_self()), ordering: .releasing)
        defer { connection = nil }
        var backoff: TimeInterval = 0.05
        var lastTraffic = Date()
        var checkSentAt: Date?
        while !isClosed {
            guard let connection else {
                if waitForWake(timeout: backoff) { continue }
                do {
                    let opened = try PGListener.open(url)
                    self.connection = opened
                    state.withLock {
                        $0.backendPID = opened.backendPID
                        $0.reconnects += 1
                    }
                    backoff = 0.05
                    lastTraffic = Date()
                    checkSentAt = nil
                    // Whatever committed while it was away was not delivered to it.
                    emit(.everything)
                } catch {
                    backoff = min(backoff * 2, PGWorker.maximumBackoff)
                }
                continue
            }
            let deadline = checkSentAt.map { $0.addingTimeInterval(PGListener.checkTimeout) }
                ?? lastTraffic.addingTimeInterval(PGListener.idleCheck)
            var fds = [pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let timeout = max(0, Int32((deadline.timeIntervalSinceNow * 1000).rounded(.up)))
            let ready = poll(&fds, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                lost()
                continue
            }
            if fds[1].revents != 0 { continue }  // woken by close
            if fds[0].revents != 0 {
                guard connection.consumeInput() else {
                    lost()
                    continue
                }
                lastTraffic = Date()
                for payload in connection.takeNotifications(channel: PGChangeFeed.channel) {
                    guard let (sender, change) = PGChangeFeed.decode(payload), sender != origin else { continue }
                    emit(change)
                }
                if checkSentAt != nil, connection.finishSentQuery() { checkSentAt = nil }
                continue
            }
            // Timed out: a check that was not answered in time, or time for one.
            if checkSentAt != nil {
                lost()
            } else if connection.sendEmptyQuery() {
                checkSentAt = Date()
            } else {
                lost()
            }
        }
    }

    private func lost() {
        connection = nil
        state.withLock { $0.backendPID = 0 }
    }

    /// Waits up to `timeout` for `close`; true when it was called.
    private func waitForWake(timeout: TimeInterval) -> Bool {
        var fds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 1, Int32(timeout * 1000))
        return isClosed
    }
}
