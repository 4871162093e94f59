#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PushwireWire
@testable import PushwireRuntime

/// Writes `bytes` to `fd` from another thread (blocking until the peer has taken them all);
/// the semaphore is signalled when done. For a client that sends more than the server takes at
/// once while the test does something else.
func sendInBackground(fd: Int32, _ bytes: [UInt8]) -> DispatchSemaphore {
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
func rawRequestFrame(callID: UInt32, method: String, message: [UInt8]) -> [UInt8] {
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
func rawHealthRequest(_ text: [UInt8]) -> [UInt8] {
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

/// A tiny blocking Pushwire client over a raw socket, for tests: preface, frames, timeouts.
final class TestClient {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let fd: Int32
    private var decoder = FrameDecoder(maxFrameSize: 64 * 1024 * 1024, expectsPreface: true)
    private(set) var settings: Settings?
    private var nextCallID: UInt32 = 1

    /// Connects; with `handshake`, sends the preface and reads the server's preface and Settings.
    /// - Parameter receiveBuffer: a fixed SO_RCVBUF (which turns off the kernel's autotuning), to
    ///   make a client that does not read fill up quickly.
    /// - Parameter source: a local address to connect from (e.g. 127.0.0.2, another loopback host).
    init(_ address: SocketAddress, handshake: Bool = true, receiveBuffer: Int32? = nil, source: SocketAddress? = nil) throws {
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
        if handshake {
            try sendRaw(WireProtocol.preface)
            guard let first = try readFrame(), case .settings(let settings)? = first.kind else {
                throw Failure(description: "expected Settings after the preface")
            }
            self.settings = settings
        }
    }

    deinit { Glibc.close(fd) }

    func close() { Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
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
    func sendNonBlocking(_ bytes: [UInt8]) -> Int {
        let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        return max(0, written)
    }

    func send(_ frame: Frame) throws {
        var bytes: [UInt8] = []
        frame.encode(appendingTo: &bytes, lengthPrefixed: true)
        try sendRaw(bytes)
    }

    /// Starts a call and returns its id.
    @discardableResult
    func start(_ path: String, _ message: [UInt8] = [], timeoutMS: UInt32 = 0, callID: UInt32? = nil) throws -> UInt32 {
        let id = callID ?? nextCallID
        if callID == nil { nextCallID += 1 }
        try send(.request(callID: id, method: path, timeoutMS: timeoutMS, message: message))
        return id
    }

    /// The next frame; nil when the server closed the connection.
    /// - Throws: on a timeout or a framing error.
    func readFrame(timeout: Double = 5) throws -> Frame? {
        let deadline = Self.now() + timeout
        while true {
            if let frame = try decoder.nextFrame() { return frame }
            let remaining = deadline - Self.now()
            guard remaining > 0 else { throw Failure(description: "timed out waiting for a frame") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(remaining * 1000) + 1)
            if ready == 0 { continue }
            var failed = false
            let count = decoder.withWritableTail(minimumCapacity: 65536) { buffer in
                let n = recv(fd, buffer.baseAddress, buffer.count, 0)
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
    func readResponse(timeout: Double = 5) throws -> (callID: UInt32, code: StatusCode, message: String, body: [UInt8]) {
        while true {
            guard let frame = try readFrame(timeout: timeout) else { throw Failure(description: "connection closed") }
            if case .response(let response)? = frame.kind {
                let status = response.status ?? Status()
                return (frame.callID, StatusCode(wireValue: status.code), status.message, response.message)
            }
        }
    }

    /// Makes one call and waits for its response.
    func call(_ path: String, _ message: [UInt8] = [], timeoutMS: UInt32 = 0) throws -> (code: StatusCode, message: String, body: [UInt8]) {
        let id = try start(path, message, timeoutMS: timeoutMS)
        let response = try readResponse()
        guard response.callID == id else { throw Failure(description: "response for \(response.callID), expected \(id)") }
        return (response.code, response.message, response.body)
    }

    /// Reads until the server closes; returns the frames seen, or throws on a timeout.
    func readUntilClosed(timeout: Double = 5) throws -> [Frame] {
        var frames: [Frame] = []
        while let frame = try readFrame(timeout: timeout) { frames.append(frame) }
        return frames
    }

    /// Reads raw bytes until the server closes; for peers whose bytes are not frames.
    func readRawUntilClosed(timeout: Double = 5) throws -> [UInt8] {
        let deadline = Self.now() + timeout
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline - Self.now()
            guard remaining > 0 else { throw Failure(description: "timed out waiting for the close") }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&poller, 1, Int32(remaining * 1000) + 1) == 0 { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return bytes }
            bytes += chunk[0..<n]
        }
    }

    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
