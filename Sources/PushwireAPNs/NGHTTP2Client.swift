import COpenSSL
import Glibc
import PushwireDelivery
import Synchronization

/// One HTTP/2 connection to a push service's host (APNs or FCM, as its `HTTP2PushProfile` says) on libnghttp2 + OpenSSL, driven by a thread of its own:
/// jobs queue here, go out as streams while the connection has room, and come back through their
/// completions. Requests that got no answer and that the server cannot have acted on (connection
/// refused, not sent whole, stream refused or above the last stream id of the server's GOAWAY)
/// are sent again on a new connection after a backoff; one sent whole that got no answer
/// (connection lost, stream reset, timeout) is `.retry` at once (`NGHTTP2Connection.Ending`).
///
/// `@unchecked Sendable`: the connection, the queue and the delayed jobs are touched only by the
/// client's thread; other threads reach the client only through `submit` and `stop`, which use the
/// inbox (`JobInbox`) and write to the wake-up pipe while holding it and while `stopping` is false.
/// The thread closes the pipe only after it has seen `stopping` under that lock, so no write can
/// race with the close.
final class NGHTTP2Client: APNsConnectionClient, @unchecked Sendable {
    private let inbox = JobInbox()
    private let endpoint: APNsEndpoint
    private let profile: any HTTP2PushProfile
    private let configuration: APNsConfiguration
    private let tlsContext: OpaquePointer
    private let connectionRetries = Atomic<Int>(0)
    private let unansweredAfterSending = Atomic<Int>(0)
    /// A wake-up is registered with the profile for a pending token (so that one is, not one per loop round).
    private let awaitingToken = Atomic<Bool>(false)
    /// The wake-up pipe: `submit` and `stop` write a byte, the thread polls the read end.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    // Client-thread state.
    private var queue: [APNsJob] = []
    private var queueHead = 0
    private var delayed: [(deadline: ContinuousClock.Instant, job: APNsJob)] = []
    private var connection: NGHTTP2Connection?
    private var nextTimeoutScan = ContinuousClock.now
    /// Outcomes settled this loop round, handed to their batches before the thread sleeps.
    private var settled = SettledJobs()
    /// The streams `settle` is acting on (empty between calls).
    private var ended: [NGHTTP2Connection.Closed] = []

    /// Sets up TLS and starts the thread; the connection opens when the first job arrives.
    init(endpoint: APNsEndpoint, profile: any HTTP2PushProfile, configuration: APNsConfiguration) throws(APNsGatewayError) {
        self.endpoint = endpoint
        self.profile = profile
        self.configuration = configuration
        do {
            tlsContext = try TLSSocket.makeContext(caFile: configuration.caFile)
        } catch {
            throw .transport(error.reason)
        }
        var ends: [Int32] = [0, 0]
        // Glibc's Swift module has no pipe2; set the flags on both ends instead.
        guard pipe(&ends) == 0,
              ends.allSatisfy({ fcntl($0, F_SETFL, O_NONBLOCK) == 0 && fcntl($0, F_SETFD, FD_CLOEXEC) == 0 }) else {
            for end in ends where end > 0 { close(end) }
            SSL_CTX_free(tlsContext)
            throw .transport("cannot create a wake-up pipe: \(String(cString: strerror(errno)))")
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]

        // The thread holds the client until its loop returns.
        guard DetachedThread.start({ [self] in run() }) else {
            throw .transport("could not start the HTTP/2 thread")
        }
    }

    deinit {
        SSL_CTX_free(tlsContext)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Requests that failed without an answer and were sent again.
    var connectionRetryCount: Int { connectionRetries.load(ordering: .relaxed) }
    var unansweredAfterSendingCount: Int { unansweredAfterSending.load(ordering: .relaxed) }

    /// Hands jobs to the client's thread. After `stop`, they complete at once with `.retry`.
    func submit(_ jobs: [APNsJob]) {
        inbox.submit(jobs) { wake() }
    }

    /// Stops the thread; notifications not yet answered complete with `.retry`.
    func stop() {
        inbox.stop { wake() }
    }

    private func wake() {
        var byte: UInt8 = 1
        // A full pipe already holds a wake-up; nothing is lost by a failed write.
        _ = write(wakeWrite, &byte, 1)
    }

    // MARK: - The client's thread

    private func run() {
        let clock = ContinuousClock()
        while true {
            if queueHead == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueHead = 0
            }
            if inbox.take(into: &queue) { break }
            let now = clock.now
            if !delayed.isEmpty { startDueRetries(now: now) }
            if connection == nil && queueHead < queue.count {
                // Connecting may block (up to connectTimeout): answers already settled go first.
                if !settled.isEmpty { settled.handOver() }
                connect()
            }

            if let connection {
                if now >= nextTimeoutScan {
                    connection.resetExpired(now: now)
                    nextTimeoutScan = now + .milliseconds(100)
                }
                startStreams(on: connection)
                connection.flush()
                settle(connection)
            }
            // This round's answers (and those read before it) reach their batches at once.
            if !settled.isEmpty { settled.handOver() }

            var entries = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            if let connection {
                entries.append(pollfd(fd: connection.socket.descriptor, events: Int16(POLLIN) | (connection.wantsWrite ? Int16(POLLOUT) : 0), revents: 0))
            }
            _ = poll(&entries, nfds_t(entries.count), pollTimeout(now: clock.now))
            if entries[0].revents != 0 { drainWakePipe() }
            if let connection, entries.count > 1, entries[1].revents != 0 {
                connection.receive()
                settle(connection)
            }
        }
        shutDown()
    }

    /// How long `poll` may sleep: until the next delayed retry or timeout scan, at most a second.
    private func pollTimeout(now: ContinuousClock.Instant) -> Int32 {
        // Jobs waiting and no connection (it was just dropped): reconnect at once. A failed
        // connect moves the queue to the delayed retries, so this cannot spin.
        if connection == nil && queueHead < queue.count { return 0 }
        var next = now + .seconds(1)
        if let retry = delayed.map(\.deadline).min() { next = min(next, retry) }
        if connection.map({ !$0.streams.isEmpty }) ?? false { next = min(next, nextTimeoutScan) }
        let wait = now.duration(to: next)
        return wait <= .zero ? 0 : Int32(Self.milliseconds(wait) + 1)
    }

    private func drainWakePipe() { Self.drain(wakeRead) }

    /// Reads a non-blocking pipe empty (its bytes are only wake-ups).
    static func drain(_ pipe: Int32) {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(pipe, &bytes, bytes.count) > 0 {}
    }

    private func connect() {
        let deadline = ContinuousClock.now + configuration.connectTimeout
        do throws(ConnectionFailure) {
            let cancellation = ConnectCancellation(wakeDescriptor: wakeRead) { [inbox] in inbox.isStopping }
            let socket = try TLSSocket.connect(to: endpoint, context: tlsContext, deadline: deadline, cancellation: cancellation)
            connection = try NGHTTP2Connection(socket: socket, authority: endpoint.authority, maxConcurrentStreams: configuration.maxConcurrentStreams)
        } catch where error == .cancelled {
            // Told to stop while connecting: the loop shuts down next and answers the queue.
            return
        } catch {
            // Nothing was sent: every queued job failed one attempt.
            let waiting = queue[queueHead...]
            queue = []
            queueHead = 0
            for job in waiting { unanswered(job, reason: error.reason) }
        }
    }

    /// Opens streams for queued jobs while the connection has room.
    private func startStreams(on connection: NGHTTP2Connection) {
        var room = connection.room
        guard room > 0, queueHead < queue.count else { return }
        let token: String
        switch profile.currentToken() {
        case .ready(let current):
            token = current
        case .pending:
            // The token is being fetched on a thread of its own: the jobs stay queued and this
            // thread goes on reading answers; the grant's end wakes it (once per wait).
            if !awaitingToken.exchange(true, ordering: .acquiringAndReleasing) {
                profile.whenTokenSettles { [weak self] in
                    guard let self else { return }
                    self.awaitingToken.store(false, ordering: .releasing)
                    self.inbox.nudge { self.wake() }
                }
            }
            return
        case .unavailable(let failure):
            let waiting = queue[queueHead...]
            queue = []
            queueHead = 0
            for job in waiting { settled.add(job, .retry(reason: failure, after: nil)) }
            return
        }
        let deadline = ContinuousClock.now + configuration.requestTimeout
        while room > 0, queueHead < queue.count {
            let job = queue[queueHead]
            queueHead += 1
            let stream = NGHTTP2Stream(job: job, token: token, deadline: deadline)
            if connection.start(stream, profile: profile) {
                room -= 1
            } else {
                unanswered(job, reason: "nghttp2 refused the request")
            }
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: true)
            queueHead = 0
        } else if queueHead >= 1024 && queueHead * 2 >= queue.count {
            // A queue that never empties (a window larger than the streams) must not keep its
            // started prefix forever.
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    /// Acts on the streams that ended, and drops the connection once it is failed or finished.
    private func settle(_ connection: NGHTTP2Connection) {
        if connection.failure != nil || connection.isFinished {
            connection.close(reason: connection.failure ?? "the server closed the connection")
            self.connection = nil
        }
        // Trades storage with the connection's list: no new array per loop round.
        swap(&ended, &connection.closed)
        for entry in ended {
            switch entry.ending {
            case .answered: answered(entry.stream)
            case .notProcessed: unanswered(entry.stream.job, reason: entry.reason)
            case .perhapsProcessed:
                unansweredAfterSending.add(1, ordering: .relaxed)
                settled.add(entry.stream.job, APNsJob.perhapsDelivered(reason: entry.reason))
            }
        }
        ended.removeAll(keepingCapacity: true)
    }

    private func answered(_ stream: NGHTTP2Stream) {
        // The job is read in place: a copy would retain and release every field of the
        // notification, once per answer.
        switch profile.verdict(status: stream.status, body: stream.body, job: stream.job, retryAfter: stream.retryAfter) {
        case .outcome(let outcome):
            settled.add(stream.job, outcome)
        case .refreshTokenAndRetry:
            guard !stream.job.refreshedToken, profile.replace(rejected: stream.token) else {
                settled.add(stream.job, profile.rejectedTokenOutcome)
                return
            }
            // The next round starts it with the new current token (or waits for it).
            var job = stream.job
            job.refreshedToken = true
            queue.append(job)
        }
    }

    /// A request that got no answer and cannot have been processed (`NGHTTP2Connection.Ending.
    /// notProcessed`): sent again after a backoff, or given back as `.retry` once the retry
    /// policy's attempts are used up.
    private func unanswered(_ job: APNsJob, reason: String) {
        var job = job
        job.failedAttempts += 1
        if job.failedAttempts < configuration.retryPolicy.maxAttempts {
            connectionRetries.add(1, ordering: .relaxed)
            delayed.append((ContinuousClock.now + configuration.retryPolicy.backoff(afterAttempt: job.failedAttempts), job))
        } else {
            settled.add(job, .retry(reason: "connection failed: \(reason)", after: nil))
        }
    }

    private func startDueRetries(now: ContinuousClock.Instant) {
        delayed.removeAll { entry in
            guard entry.deadline <= now else { return false }
            queue.append(entry.job)
            return true
        }
    }

    private func shutDown() {
        let jobs = inbox.takeRemaining()
        var unfinished = jobs + queue[queueHead...] + delayed.map(\.job)
        if let connection {
            connection.sayGoodbye()
            connection.close(reason: "gateway shut down")
            unfinished += connection.closed.map(\.stream.job)
            connection.closed = []
        }
        connection = nil
        queue = []
        queueHead = 0
        delayed = []
        for job in unfinished { settled.add(job, .retry(reason: "gateway shut down", after: nil)) }
        settled.handOver()
    }

    /// Whole milliseconds in `duration` (rounded down).
    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}
