import CNGHTTP2
import Glibc

/// One HTTP/2 connection to APNs: a `TLSSocket` and an nghttp2 client session over it.
///
/// nghttp2 does the framing only; this class moves bytes. `receive` feeds what `SSL_read` returns
/// to `nghttp2_session_mem_recv`, and `flush` gathers everything `nghttp2_session_mem_send` has
/// (every request started since the last round, acknowledgements, window updates) into one
/// `SSL_write` — one TLS record and one `sendto` per loop round rather than several per request.
/// Streams that end are put in `closed` for the client to act on after the call that ended them,
/// so no completion runs inside nghttp2's callbacks.
///
/// Used on its `NGHTTP2Client`'s thread only. nghttp2's callbacks reach the connection through an
/// unretained pointer; they run only inside the `nghttp2_session_*` calls this class makes, while
/// it is alive.
final class NGHTTP2Connection {
    /// A stream that ended, and how (`Ending`).
    struct Closed {
        var stream: NGHTTP2Stream
        var ending: Ending
        var reason: String
    }

    /// How a stream ended, which decides whether its request may be sent again within its
    /// delivery attempt (at most once per attempt record, docs/DELIVERY.md).
    enum Ending {
        /// The server sent a status (the stream holds it).
        case answered
        /// No answer, and the server cannot have acted on the request: it refused the stream
        /// (REFUSED_STREAM, which nghttp2 also gives every stream above the last stream id of
        /// the server's GOAWAY), or not all of the request's body was sent. It may go again.
        case notProcessed
        /// No answer, though the whole request went out: the connection was lost, the stream
        /// reset or past its deadline, and the server may have delivered it. It must not go
        /// again in this attempt.
        case perhapsProcessed

        /// How `stream` ended when it closed with `errorCode` (0 when the connection ended).
        static func of(_ stream: NGHTTP2Stream, errorCode: UInt32) -> Ending {
            if stream.status != 0 && !stream.timedOut { return .answered }
            if errorCode == NGHTTP2_REFUSED_STREAM.rawValue || stream.bodySent < stream.job.notification.payload.count {
                return .notProcessed
            }
            return .perhapsProcessed
        }
    }

    let socket: TLSSocket
    private var session: OpaquePointer?
    private let authority: String
    private let maxStreams: Int
    /// Open streams by id.
    private(set) var streams: [Int32: NGHTTP2Stream] = [:]
    /// Streams that ended since the client last looked.
    var closed: [Closed] = []
    /// Why the connection cannot be used any more; nil while it is healthy.
    private(set) var failure: String?
    /// Whether the server sent GOAWAY: no new streams; the ones it processed still complete.
    private(set) var goingAway = false
    /// Whether the server's first SETTINGS arrived. No request starts before: its
    /// MAX_CONCURRENT_STREAMS may be lower than ours (APNs starts new connections at 1 until the
    /// first request is authorised), and streams above it would be refused or end the connection.
    private(set) var settingsReceived = false

    /// The bearer token `headers` was laid out for.
    private var sharedToken = ""
    /// The request headers: the first `sharedCount` (pseudo-headers but `:path`, the headers
    /// every request with `sharedToken` carries) laid out once per token, the rest per request.
    private var headers = NGHTTP2HeaderBlock()
    private var sharedCount = 0
    private var entries: [nghttp2_nv] = []

    private var outbound: [UInt8] = []
    private var outboundOffset = 0
    private static let readSize = 16 * 1024
    private let readBuffer = UnsafeMutableRawPointer.allocate(byteCount: NGHTTP2Connection.readSize, alignment: 16)

    /// Starts an HTTP/2 session on `socket` (the client preface and SETTINGS go out with the
    /// first `flush`).
    init(socket: TLSSocket, authority: String, maxConcurrentStreams: Int) throws(ConnectionFailure) {
        self.socket = socket
        self.authority = authority
        self.maxStreams = maxConcurrentStreams
        var callbacks: OpaquePointer?
        guard nghttp2_session_callbacks_new(&callbacks) == 0, let callbacks else { throw ConnectionFailure(reason: "nghttp2: out of memory") }
        defer { nghttp2_session_callbacks_del(callbacks) }
        nghttp2_session_callbacks_set_on_header_callback(callbacks, Self.onHeader)
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, Self.onData)
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, Self.onStreamClose)
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, Self.onFrame)
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { throw ConnectionFailure(reason: "nghttp2: out of memory") }
        defer { nghttp2_option_del(option) }
        // Until the server's SETTINGS arrive, assume no more streams than we would open anyway.
        nghttp2_option_set_peer_max_concurrent_streams(option, UInt32(clamping: maxConcurrentStreams))
        var created: OpaquePointer?
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_client_new2(&created, callbacks, context, option) == 0, let created else {
            throw ConnectionFailure(reason: "nghttp2: cannot create a session")
        }
        session = created
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0)]
        guard nghttp2_submit_settings(created, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0 else {
            throw ConnectionFailure(reason: "nghttp2: cannot submit SETTINGS")
        }
    }

    deinit {
        if let session { nghttp2_session_del(session) }
        readBuffer.deallocate()
    }

    /// How many more streams may be opened now: the smaller of the configured limit and the
    /// server's SETTINGS_MAX_CONCURRENT_STREAMS, minus the open ones; 0 after GOAWAY or a failure.
    var room: Int {
        guard let session, failure == nil, settingsReceived, !goingAway, nghttp2_session_check_request_allowed(session) != 0 else { return 0 }
        let remote = Int(nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS))
        return max(0, min(maxStreams, remote) - streams.count)
    }

    /// Whether bytes are waiting for the socket to take them.
    var wantsWrite: Bool { outboundOffset < outbound.count }

    /// Whether the session has nothing more to do: after GOAWAY with every stream ended, or after
    /// both sides are done.
    var isFinished: Bool {
        guard let session, failure == nil else { return true }
        if goingAway && streams.isEmpty { return true }
        return nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 && !wantsWrite
    }

    /// Queues the request for `stream` (HEADERS, then the payload as DATA). Returns false if
    /// nghttp2 refused it; the stream is then not in the table.
    func start(_ stream: NGHTTP2Stream, profile: any HTTP2PushProfile) -> Bool {
        guard let session else { return false }
        if stream.token != sharedToken || headers.count == 0 {
            sharedToken = stream.token
            headers.removeAll()
            headers.append(":method", "POST")
            headers.append(":scheme", "https")
            headers.append(":authority", authority)
            profile.appendSharedHeaders(token: stream.token, to: &headers)
            sharedCount = headers.count
        } else {
            headers.removeAll(keepingFirst: sharedCount)
        }
        // :path and the notification's own headers; the block sends the pseudo-headers first.
        profile.appendRequestHeaders(for: stream.job, to: &headers)
        let streamID = headers.withEntries(&entries) { entries in
            var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: Self.readBody)
            // The stream rides along as nghttp2's stream user data (unretained: the table below
            // holds it until it closes), so the callbacks find it without a table lookup per
            // header and DATA chunk.
            return nghttp2_submit_request(session, nil, entries, entries.count, &provider, Unmanaged.passUnretained(stream).toOpaque())
        }
        guard streamID > 0 else { return false }
        streams[streamID] = stream
        return true
    }

    /// Resets the streams whose deadline has passed; they end as unanswered.
    func resetExpired(now: ContinuousClock.Instant) {
        guard let session else { return }
        for (id, stream) in streams where stream.deadline <= now && !stream.timedOut {
            stream.timedOut = true
            nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), id, NGHTTP2_CANCEL.rawValue)
        }
    }

    /// Serialises everything nghttp2 has to send and writes it with as few `SSL_write`s as the
    /// socket allows; what it does not take now stays for the next round.
    func flush() {
        guard let session, failure == nil else { return }
        if !wantsWrite {
            outbound.removeAll(keepingCapacity: true)
            outboundOffset = 0
            while true {
                var data: UnsafePointer<UInt8>?
                let length = nghttp2_session_mem_send(session, &data)
                if length < 0 {
                    fail("nghttp2: \(String(cString: nghttp2_strerror(Int32(length))))")
                    return
                }
                guard length > 0, let data else { break }
                outbound.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            }
        }
        while wantsWrite {
            let result = outbound.withUnsafeBytes { bytes -> TLSSocket.IOResult in
                // wantsWrite means the buffer is not empty, so it has a base address.
                guard let base = bytes.baseAddress else { return .bytes(0) }
                return socket.write(base + outboundOffset, count: bytes.count - outboundOffset)
            }
            switch result {
            case .bytes(let written): outboundOffset += written
            case .wouldBlock: return
            case .closed(let why): fail(why); return
            }
        }
    }

    /// Reads everything the socket has and feeds it to nghttp2.
    func receive() {
        guard let session, failure == nil else { return }
        while true {
            switch socket.read(into: readBuffer, count: Self.readSize) {
            case .bytes(let count):
                let consumed = nghttp2_session_mem_recv(session, readBuffer.assumingMemoryBound(to: UInt8.self), count)
                if consumed < 0 {
                    fail("nghttp2: \(String(cString: nghttp2_strerror(Int32(consumed))))")
                    return
                }
            case .wouldBlock:
                return
            case .closed(let why):
                fail(why)
                return
            }
        }
    }

    /// Tells the server this client is done (GOAWAY, NO_ERROR) and writes it if the socket takes
    /// it now; used when the gateway shuts down. Streams still open end as in `close`.
    func sayGoodbye() {
        guard let session, failure == nil else { return }
        if nghttp2_session_terminate_session(session, NGHTTP2_NO_ERROR.rawValue) == 0 {
            outbound.removeAll(keepingCapacity: true)
            outboundOffset = 0
            flush()
        }
    }

    /// Ends the connection: every stream still open is reported in `closed` as unanswered.
    func close(reason: String) {
        fail(reason)
        for (_, stream) in streams { closed.append(Closed(stream: stream, ending: .of(stream, errorCode: 0), reason: reason)) }
        streams = [:]
        if let session { nghttp2_session_del(session) }
        session = nil
    }

    private func fail(_ reason: String) {
        if failure == nil { failure = reason }
    }

    // MARK: - nghttp2 callbacks (on this thread, inside mem_recv / mem_send)

    private static func connection(_ context: UnsafeMutableRawPointer?) -> NGHTTP2Connection? {
        context.map { Unmanaged<NGHTTP2Connection>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The stream `start` attached to `streamID`; nil for one it did not start. Valid while the
    /// stream is in `streams` (nghttp2 forgets the pointer when the stream closes).
    private static func stream(_ session: OpaquePointer?, _ streamID: Int32) -> NGHTTP2Stream? {
        guard let session, let data = nghttp2_session_get_stream_user_data(session, streamID) else { return nil }
        return Unmanaged<NGHTTP2Stream>.fromOpaque(data).takeUnretainedValue()
    }

    private static let readBody: nghttp2_data_source_read_callback = { session, streamID, buffer, length, flags, _, _ in
        guard let stream = stream(session, streamID), let buffer, let flags else {
            return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue)
        }
        let payload = stream.job.notification.payload
        let count = min(length, payload.count - stream.bodySent)
        payload.withUnsafeBytes { bytes in
            if count > 0, let base = bytes.baseAddress { buffer.update(from: base.assumingMemoryBound(to: UInt8.self) + stream.bodySent, count: count) }
        }
        stream.bodySent += count
        if stream.bodySent == payload.count { flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue }
        return count
    }

    private static let onHeader: nghttp2_on_header_callback = { session, frame, name, nameLength, value, valueLength, _, _ in
        guard let frame, let name, let value, frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
              let stream = stream(session, frame.pointee.hd.stream_id) else { return 0 }
        // Lengths first, then memcmp: a response has several headers and only these two matter.
        if nameLength == 7 && memcmp(name, ":status", 7) == 0 {
            stream.status = NGHTTP2Connection.status(UnsafeBufferPointer(start: value, count: valueLength))
        } else if nameLength == 11 && memcmp(name, "retry-after", 11) == 0 {
            stream.retryAfter = APNsResponse.retryAfter(Substring(String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self)))
        }
        return 0
    }

    /// The value of `:status`: three ASCII digits, read without making a String (once per
    /// response); 0 (no answer) for anything else.
    static func status(_ digits: UnsafeBufferPointer<UInt8>) -> Int {
        guard digits.count == 3 else { return 0 }
        var value = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return 0 }
            value = value * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return value
    }

    private static let onData: nghttp2_on_data_chunk_recv_callback = { session, _, streamID, data, length, _ in
        guard let data, let stream = stream(session, streamID) else { return 0 }
        let room = max(0, NGHTTP2Stream.maxBodyBytes - stream.body.count)
        stream.body.append(contentsOf: UnsafeBufferPointer(start: data, count: min(length, room)))
        return 0
    }

    private static let onFrame: nghttp2_on_frame_recv_callback = { _, frame, context in
        guard let frame, let connection = connection(context) else { return 0 }
        switch frame.pointee.hd.type {
        case UInt8(NGHTTP2_GOAWAY.rawValue):
            connection.goingAway = true
        case UInt8(NGHTTP2_SETTINGS.rawValue) where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            connection.settingsReceived = true
        default:
            break
        }
        return 0
    }

    private static let onStreamClose: nghttp2_on_stream_close_callback = { _, streamID, errorCode, context in
        guard let connection = connection(context), let stream = connection.streams.removeValue(forKey: streamID) else { return 0 }
        // A status means APNs answered (a 200 has no body); a stream closed without one was
        // refused (REFUSED_STREAM, GOAWAY above its last stream id) or reset (ours at its
        // deadline, or the server's) — `Ending` tells which may have been processed.
        let ending = Ending.of(stream, errorCode: errorCode)
        // The reason is only read for unanswered streams; an answered one (nearly every stream)
        // builds no string.
        let reason: String
        if ending == .answered {
            reason = ""
        } else if stream.timedOut {
            reason = "request timed out"
        } else if connection.goingAway {
            reason = "the server sent GOAWAY"
        } else {
            reason = "stream closed: \(String(cString: nghttp2_http2_strerror(errorCode)))"
        }
        connection.closed.append(Closed(stream: stream, ending: ending, reason: reason))
        return 0
    }
}
