#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import Dispatch
import PushwireSystem
import PushwireWire

/// Writes `bytes` to `fd` from another thread (blocking until the peer has taken them all);
/// the semaphore is signalled when done. For a client that sends more than the server takes at
/// once while the test does something else.
public func sendInBackground(fd: Int32, _ bytes: [UInt8]) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                break
            }
            offset += written
        }
        done.signal()
    }
    return done
}

/// A length-prefixed request frame built by hand with bulk copies: the generated encoders are slow
/// on megabyte fields in a debug build (seconds for a dozen 1 MiB requests), which would make
/// the client, not the server, the slow side of a test.
public func rawRequestFrame(callID: UInt32, method: String, message: [UInt8]) -> [UInt8] {
    func varint(_ value: Int, into bytes: inout [UInt8]) {
        var value = UInt64(value)
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }
    var request: [UInt8] = [0x0A]
    varint(method.utf8.count, into: &request)
    request.append(contentsOf: Array(method.utf8))
    request.append(0x22)
    varint(message.count, into: &request)
    request.append(contentsOf: message)
    var frame: [UInt8] = [0x08]
    varint(Int(callID), into: &frame)
    frame.append(0x12)
    varint(request.count, into: &frame)
    frame.append(contentsOf: request)
    var out: [UInt8] = []
    let length = UInt32(frame.count)
    out.append(contentsOf: [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)])
    out.append(contentsOf: frame)
    return out
}

/// A `HealthCheckRequest` whose `service` is `text`, built by hand (see `rawRequestFrame`).
public func rawHealthRequest(_ text: [UInt8]) -> [UInt8] {
    var bytes: [UInt8] = [0x0A]
    var value = UInt64(text.count)
    while value >= 0x80 {
        bytes.append(UInt8(value & 0x7F) | 0x80)
        value >>= 7
    }
    bytes.append(UInt8(value))
    bytes.append(contentsOf: text)
    return bytes
}

/// The one blocking Pushwire client of the tests, over a raw socket: it speaks the framing of
/// docs/PROTOCOL.md itself (preface, Settings, frames, timeouts), so a test depends only on the
/// server and the generated messages, and can send what no real client would (garbage, stalls,
/// frames out of order). The runtime's suites use it by address, the service's against a pushwired
/// by port (`init(port:)`, `call(_:_:token:)`, `nextResponse()`), under the name `RawClient` too.
public final class TestClient {
    /// A socket call failed, the server closed, or a wait timed out.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// The connected socket.
    public let fd: Int32
    /// TLS over `fd` when the client was made with `tls`; every read and write then goes through it.
    public private(set) var ssl: OpaquePointer?
    private var decoder = FrameDecoder(maxFrameSize: 64 * 1024 * 1024, expectsPreface: true)
    /// The server's Settings, read by the handshake.
    public private(set) var settings: Settings?
    private var nextCallID: UInt32 = 1
    /// How long the calls of the service tests' API wait for a frame: long enough for a pushwired
    /// under load, bounded so that a server that never answers fails the test instead of hanging it.
    public static let serviceTimeout: Double = 120

    /// Connects; with `handshake`, sends the preface and reads the server's preface and Settings.
    /// - Parameter receiveBuffer: a fixed SO_RCVBUF (which turns off the kernel's autotuning), to
    ///   make a client that does not read fill up quickly.
    /// - Parameter source: a local address to connect from (e.g. 127.0.0.2, another loopback host).
    /// - Parameter tls: speak TLS (handshake in `init`, before the preface) with these settings.
    public init(_ address: SocketAddress, handshake: Bool = true, receiveBuffer: Int32? = nil, source: SocketAddress? = nil,
                tls: TestTLS.Client? = nil) throws {
        let socket = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        fd = socket
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        if let source {
            guard source.withSockAddr({ Glibc.bind(fd, $0, $1) }) == 0 else {
                Glibc.close(fd)
                throw Failure(description: "bind: errno \(errno)")
            }
        }
        let result = address.withSockAddr { Glibc.connect(fd, $0, $1) }
        guard result == 0 else {
            Glibc.close(fd)
            throw Failure(description: "connect: errno \(errno)")
        }
        if let tls {
            do {
                ssl = try tls.handshake(fd: fd)
            } catch {
                Glibc.close(fd)
                throw error
            }
        }
        if handshake {
            try sendRaw(WireProtocol.preface)
            guard let first = try readFrame(), case .settings(let settings)? = first.kind else {
                throw Failure(description: "expected Settings after the preface")
            }
            self.settings = settings
        }
    }

    /// Connects to pushwired on 127.0.0.1:`port` and does the handshake.
    public convenience init(port: UInt16) throws {
        guard let address = try? SocketAddress(parsing: "127.0.0.1:\(port)") else {
            throw Failure(description: "bad port \(port)")
        }
        try self.init(address)
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        Glibc.close(fd)
    }

    /// The protocol the server selected by ALPN; nil when none.
    public var selectedALPN: String? {
        guard let ssl else { return nil }
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// `TLSv1.3`, `TLSv1.2`; nil in clear text.
    public var tlsVersion: String? { ssl.map { String(cString: SSL_get_version($0)) } }

    /// One read of at most `buffer.count` bytes: recv(2), or SSL_read under TLS; 0 at the end of
    /// the stream, < 0 on failure.
    public func receive(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let ssl else { return recv(fd, buffer.baseAddress, buffer.count, 0) }
        let n = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if n > 0 { return Int(n) }
        let error = SSL_get_error(ssl, n)
        ERR_clear_error()
        return error == SSL_ERROR_ZERO_RETURN ? 0 : -1
    }

    /// Whether a read would find bytes now: decrypted ones waiting in OpenSSL, or the socket's.
    public func waitReadable(milliseconds: Int32) -> Bool {
        if let ssl, SSL_pending(ssl) > 0 { return true }
        var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&poller, 1, milliseconds) > 0
    }

    public func close() { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    public func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        if let ssl {
            while offset < bytes.count {
                let written = bytes.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + offset, Int32($0.count - offset)) }
                guard written > 0 else {
                    ERR_clear_error()
                    throw Failure(description: "SSL_write failed")
                }
                offset += Int(written)
            }
            return
        }
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(description: "send: errno \(errno)")
            }
            offset += written
        }
    }

    /// Sends without blocking; returns how many bytes the kernel took (0 when its buffers are full).
    public func sendNonBlocking(_ bytes: [UInt8]) -> Int {
        let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        return max(0, written)
    }

    public func send(_ frame: Frame) throws {
        var bytes: [UInt8] = []
        frame.encode(appendingTo: &bytes, lengthPrefixed: true)
        try sendRaw(bytes)
    }

    /// Starts a call and returns its id.
    @discardableResult
    public func start(_ path: String, _ message: [UInt8] = [], timeoutMS: UInt32 = 0, callID: UInt32? = nil) throws -> UInt32 {
        let id = callID ?? nextCallID
        if callID == nil { nextCallID += 1 }
        try send(.request(callID: id, method: path, timeoutMS: timeoutMS, message: message))
        return id
    }

    /// The next frame; nil when the server closed the connection.
    /// - Throws: on a timeout or a framing error.
    public func readFrame(timeout: Double = 5) throws -> Frame? {
        let deadline = Self.now() + timeout
        while true {
            if let frame = try decoder.nextFrame() { return frame }
            let remaining = deadline - Self.now()
            guard remaining > 0 else { throw Failure(description: "timed out waiting for a frame") }
            if !waitReadable(milliseconds: Int32(remaining * 1000) + 1) { continue }
            var failed = false
            let count = decoder.withWritableTail(minimumCapacity: 65536) { buffer in
                let n = receive(buffer)
                if n < 0 { failed = true; return 0 }
                return n
            }
            if failed {
                if errno == EINTR || errno == EAGAIN { continue }
                return nil  // reset by the server counts as closed
            }
            if count == 0 { return nil }
        }
    }

    /// The next response frame (skipping pongs and other kinds): (call id, status, message, body).
    public func readResponse(timeout: Double = 5) throws -> (callID: UInt32, code: StatusCode, message: String, body: [UInt8]) {
        while true {
            guard let frame = try readFrame(timeout: timeout) else { throw Failure(description: "connection closed") }
            if case .response(let response)? = frame.kind {
                let status = response.status ?? Status()
                return (frame.callID, StatusCode(wireValue: status.code), status.message, response.message)
            }
        }
    }

    /// Makes one call and waits for its response.
    public func call(_ path: String, _ message: [UInt8] = [], timeoutMS: UInt32 = 0) throws -> (code: StatusCode, message: String, body: [UInt8]) {
        let id = try start(path, message, timeoutMS: timeoutMS)
        let response = try readResponse()
        guard response.callID == id else { throw Failure(description: "response for \(response.callID), expected \(id)") }
        return (response.code, response.message, response.body)
    }

    /// Reads until the server closes; returns the frames seen, or throws on a timeout.
    public func readUntilClosed(timeout: Double = 5) throws -> [Frame] {
        var frames: [Frame] = []
        while let frame = try readFrame(timeout: timeout) { frames.append(frame) }
        return frames
    }

    /// Reads raw bytes until the server closes; for peers whose bytes are not frames.
    public func readRawUntilClosed(timeout: Double = 5) throws -> [UInt8] {
        let deadline = Self.now() + timeout
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline - Self.now()
            guard remaining > 0 else { throw Failure(description: "timed out waiting for the close") }
            if !waitReadable(milliseconds: Int32(remaining * 1000) + 1) { continue }
            let n = chunk.withUnsafeMutableBytes { receive($0) }
            if n <= 0 { return bytes }
            bytes += chunk[0..<n]
        }
    }

    /// Connects and makes one call, again and again until the server admits a connection and
    /// answers it (a server at a connection limit closes new connections unanswered) or `timeout`
    /// passes: for a test that waits for a closed connection's slot to be given back.
    public static func callOnceAdmitted(_ address: SocketAddress, _ path: String, _ message: [UInt8] = [],
                                        timeout: Double = 5) throws -> (code: StatusCode, message: String, body: [UInt8]) {
        let deadline = now() + timeout
        while true {
            do {
                return try TestClient(address).call(path, message)
            } catch {
                if now() > deadline { throw error }
                usleep(10_000)
            }
        }
    }

    // MARK: The service tests' API (typed messages, status codes as wire values)

    /// Sends a request frame for `message` without waiting for its response; `token` becomes the
    /// `authorization: Bearer` entry, before `metadata`.
    public func sendRequest<Message: WireMessage>(callID: UInt32, path: String, _ message: Message, token: String? = nil,
                                                  metadata: [(key: String, value: String)] = []) throws {
        let entries = (token.map { [Metadata(key: "authorization", value: "Bearer \($0)")] } ?? [])
            + metadata.map { Metadata(key: $0.key, value: $0.value) }
        try sendRequestFrame(callID: callID, path: path, message: message.encode(), metadata: entries)
    }

    /// Sends a request frame carrying `message` as given (any bytes), without waiting.
    public func sendRawRequest(callID: UInt32, path: String, message: [UInt8], metadata: [(key: String, value: String)] = []) throws {
        try sendRequestFrame(callID: callID, path: path, message: message, metadata: metadata.map { Metadata(key: $0.key, value: $0.value) })
    }

    private func sendRequestFrame(callID: UInt32, path: String, message: [UInt8], metadata: [Metadata]) throws {
        var request = Request()
        request.method = path
        request.message = message
        request.metadata = metadata
        var frame = Frame()
        frame.callID = callID
        frame.kind = .request(request)
        try send(frame)
    }

    /// Sends any frame.
    public func sendFrame(_ frame: Frame) throws { try send(frame) }

    /// The next frame of any kind.
    /// - Throws: when the server closed the connection or nothing came within `serviceTimeout`.
    public func nextFrame() throws -> Frame {
        guard let frame = try readFrame(timeout: Self.serviceTimeout) else { throw Failure(description: "connection closed") }
        return frame
    }

    /// The next response frame (other frames are skipped), its status code as the wire value.
    public func nextResponse() throws -> (callID: UInt32, code: UInt32, message: String, body: [UInt8]) {
        while true {
            guard let frame = try readFrame(timeout: Self.serviceTimeout) else { throw Failure(description: "connection closed") }
            if case .response(let response)? = frame.kind {
                // The code as sent, not mapped onto `StatusCode`: a test may check an unknown one.
                return (frame.callID, response.status?.code ?? 0, response.status?.message ?? "", response.message)
            }
        }
    }

    /// One call, waited for; a status other than OK is thrown as the `RPCError` it names.
    public func call<Request: WireMessage, Response: WireMessage>(_ method: MethodDescriptor<Request, Response>, _ request: Request,
                                                                   token: String? = nil, metadata: [(key: String, value: String)] = [],
                                                                   callID: UInt32 = 1) throws -> Response {
        try sendRequest(callID: callID, path: method.path, request, token: token, metadata: metadata)
        let response = try nextResponse()
        guard response.code == 0 else {
            throw RPCError(StatusCode(wireValue: response.code), response.message)
        }
        return try Response(decoding: response.body)
    }

    /// The monotonic clock in seconds.
    public static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

/// The name the service tests (and the pushwired process tests) know `TestClient` by.
public typealias RawClient = TestClient
