import CCurl
import Glibc
import PushwireDelivery
import Synchronization

/// libcurl's multi interface driven by a thread of its own: long-lived HTTP/2 connections to one
/// APNs host, many streams on each, and the retry of requests whose connection failed.
///
/// `@unchecked Sendable`: the multi handle, the transfer table, the idle handles and the delayed
/// jobs are touched only by the HTTP/2 thread; other threads reach the client only through
/// `submit` and `stop`, which use the inbox (`JobInbox`) and `curl_multi_wakeup` (documented as
/// callable from any thread). They call `curl_multi_wakeup` only while holding the lock and
/// `stopping` is false, and the thread cleans the multi handle up only after it has seen
/// `stopping` under that lock, so no wake-up can race with its destruction.
final class HTTP2Client: APNsConnectionClient, @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private let inbox = JobInbox()
    private let baseURL: String
    private let topic: String
    private let configuration: APNsConfiguration
    private let tokens: ProviderTokenCache
    private let connectionRetries = Atomic<Int>(0)
    private let unansweredAfterSending = Atomic<Int>(0)

    // HTTP/2-thread state.
    private var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    private var delayed: [(deadline: ContinuousClock.Instant, job: APNsJob)] = []
    /// The jobs taken from the inbox this round.
    private var arrived: [APNsJob] = []

    /// libcurl's global state must be set up once, before any thread uses it.
    private static let globalInit: CURLcode = curl_global_init(Int(CURL_GLOBAL_DEFAULT))

    /// Creates the multi handle and starts the HTTP/2 thread.
    init(baseURL: String, topic: String, configuration: APNsConfiguration, tokens: ProviderTokenCache) throws(APNsGatewayError) {
        guard Self.globalInit == CURLE_OK, let multi = curl_multi_init() else { throw .libcurl("initialisation failed") }
        self.multi = multi
        self.baseURL = baseURL
        self.topic = topic
        self.configuration = configuration
        self.tokens = tokens
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, ccurl_pipe_multiplex())
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, configuration.maxConnections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, configuration.maxConnections)
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, configuration.maxConnections)
        // libcurl uses the smaller of this and the server's SETTINGS_MAX_CONCURRENT_STREAMS.
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maxConcurrentStreams)

        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            // The thread owns the +1 taken above until it returns.
            let client = Unmanaged<HTTP2Client>.fromOpaque(context!).takeRetainedValue()
            client.run()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<HTTP2Client>.fromOpaque(context).release()
            curl_multi_cleanup(multi)
            throw .libcurl("could not start the HTTP/2 thread (\(created))")
        }
        pthread_detach(thread)
    }

    /// Requests that failed without an answer and were sent again.
    var connectionRetryCount: Int { connectionRetries.load(ordering: .relaxed) }
    var unansweredAfterSendingCount: Int { unansweredAfterSending.load(ordering: .relaxed) }

    /// Hands jobs to the HTTP/2 thread. After `stop`, they complete at once with `.retry`.
    func submit(_ jobs: [APNsJob]) {
        inbox.submit(jobs) { curl_multi_wakeup(multi) }
    }

    /// Stops the thread; notifications in flight complete with `.retry`.
    func stop() {
        inbox.stop { curl_multi_wakeup(multi) }
    }

    // MARK: - The HTTP/2 thread

    private func run() {
        let clock = ContinuousClock()
        while true {
            if inbox.take(into: &arrived) { break }
            for job in arrived { start(job) }
            arrived.removeAll(keepingCapacity: true)
            if !delayed.isEmpty { startDueRetries(now: clock.now) }

            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            var queued: Int32 = 0
            while let message = curl_multi_info_read(multi, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
                finish(easy, result: ccurl_message_result(message))
            }

            var timeoutMS: Int32 = 1000
            if let next = delayed.map(\.deadline).min() {
                let wait = clock.now.duration(to: next)
                timeoutMS = wait <= .zero ? 0 : Int32(min(1000, wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000 + 1))
            }
            curl_multi_poll(multi, nil, 0, timeoutMS, nil)
        }
        shutDown()
    }

    private func startDueRetries(now: ContinuousClock.Instant) {
        var due: [APNsJob] = []
        delayed.removeAll { entry in
            guard entry.deadline <= now else { return false }
            due.append(entry.job)
            return true
        }
        for job in due { start(job) }
    }

    private func start(_ job: APNsJob) {
        guard let token = tokens.current() else {
            job.complete(.retry(reason: "could not sign the provider token", after: nil))
            return
        }
        start(job, token: token)
    }

    private func start(_ job: APNsJob, token: String) {
        guard let easy = idleHandles.popLast() ?? makeHandle() else {
            job.complete(.retry(reason: "libcurl could not create a handle", after: nil))
            return
        }
        let notification = job.notification
        let lines = APNsRequest.headers(for: job, topic: topic, token: token).map { "\($0.name): \($0.value)" }
        let transfer = CurlTransfer(job: job, easy: easy, token: token, headerLines: lines)
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = ccurl_easy_setopt_string(easy, CURLOPT_URL, baseURL + APNsRequest.path(for: notification))
        _ = ccurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, transfer.headers)
        _ = ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(notification.payload.count))
        _ = notification.payload.withUnsafeBytes { payload in
            // COPYPOSTFIELDS copies, so the payload need not outlive this call; an empty payload
            // still needs a valid pointer.
            ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: payload.baseAddress ?? UnsafeRawPointer(bitPattern: 1)))
        }
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        transfers[easy] = transfer
        if curl_multi_add_handle(multi, easy) != CURLM_OK {
            transfers[easy] = nil
            curl_easy_cleanup(easy)
            job.complete(.retry(reason: "libcurl refused the request", after: nil))
        }
    }

    private func makeHandle() -> UnsafeMutableRawPointer? {
        guard let easy = curl_easy_init() else { return nil }
        _ = ccurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, ccurl_http_version_2tls())
        _ = ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // Wait for an existing connection to say whether it multiplexes rather than open another.
        _ = ccurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1)
        // APNs answers are a few hundred bytes; libcurl's 16 KiB download buffer is allocated and
        // freed per transfer, which shows in profiles at tens of thousands of requests per second.
        _ = ccurl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 4096)
        _ = ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(configuration.requestTimeout))
        _ = ccurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        if let caFile = configuration.caFile { _ = ccurl_easy_setopt_string(easy, CURLOPT_CAINFO, caFile) }
        _ = ccurl_easy_setopt_callback(easy, CURLOPT_WRITEFUNCTION, CurlTransfer.writeCallback)
        _ = ccurl_easy_setopt_callback(easy, CURLOPT_HEADERFUNCTION, CurlTransfer.headerCallback)
        return easy
    }

    private func finish(_ easy: UnsafeMutableRawPointer, result: CURLcode) {
        curl_multi_remove_handle(multi, easy)
        guard let transfer = transfers.removeValue(forKey: easy) else { return }
        if idleHandles.count < configuration.maxInFlight { idleHandles.append(easy) } else { curl_easy_cleanup(easy) }
        var job = transfer.job

        guard result == CURLE_OK else {
            // No answer from APNs. Once the whole body went out APNs may have delivered it: not
            // sent again in this attempt. (libcurl itself sends again most streams APNs refused;
            // one it fails after sending all of it cannot be told from one APNs acted on.)
            var uploaded: curl_off_t = 0
            _ = ccurl_easy_getinfo_off_t(easy, CURLINFO_SIZE_UPLOAD_T, &uploaded)
            if uploaded >= job.notification.payload.count {
                unansweredAfterSending.add(1, ordering: .relaxed)
                job.complete(APNsJob.perhapsDelivered(reason: String(cString: curl_easy_strerror(result))))
                return
            }
            // The connection failed or was refused before all of it was sent: send it again on a
            // fresh connection, after a backoff.
            job.failedAttempts += 1
            if job.failedAttempts < configuration.retryPolicy.maxAttempts {
                connectionRetries.add(1, ordering: .relaxed)
                let delay = configuration.retryPolicy.backoff(afterAttempt: job.failedAttempts)
                delayed.append((ContinuousClock.now + delay, job))
            } else {
                let why = String(cString: curl_easy_strerror(result))
                job.complete(.retry(reason: "connection failed: \(why)", after: nil))
            }
            return
        }

        var status = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        switch APNsResponse.verdict(status: status, body: transfer.body, apnsID: job.apnsID, retryAfter: transfer.retryAfter) {
        case .outcome(let outcome):
            job.complete(outcome)
        case .refreshTokenAndRetry:
            guard !job.refreshedToken, let token = tokens.replace(expired: transfer.token) else {
                job.complete(.retry(reason: "ExpiredProviderToken", after: .seconds(60)))
                return
            }
            job.refreshedToken = true
            start(job, token: token)
        }
    }

    private func shutDown() {
        let jobs = inbox.takeRemaining()
        let unfinished = jobs + arrived + delayed.map(\.job) + transfers.values.map(\.job)
        for (easy, _) in transfers {
            curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
        }
        transfers = [:]
        delayed = []
        arrived = []
        for easy in idleHandles { curl_easy_cleanup(easy) }
        idleHandles = []
        curl_multi_cleanup(multi)
        for job in unfinished { job.complete(.retry(reason: "gateway shut down", after: nil)) }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// Why an `APNsGateway` could not be created.
public enum APNsGatewayError: Error, Sendable, Equatable {
    /// The credentials were refused (see `APNsCredentialError`).
    case credentials(APNsCredentialError)
    /// libcurl could not be set up; the text says how.
    case libcurl(String)
    /// The nghttp2 transport could not be set up (a base URL that is not `https://host[:port]`,
    /// a CA file that does not load, no thread); the text says how.
    case transport(String)
}
