#if canImport(Glibc)
import Glibc
#endif
import PushwireWire

/// A deliberately small blocking client for the crash test: it speaks the framing of
/// docs/PROTOCOL.md itself, so the test depends only on pushwired and the generated messages.
final class RawClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw Failure(description: "connect: errno \(errno)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        try send(WireProtocol.preface)
        let preface = try read(count: WireProtocol.preface.count)
        guard preface == WireProtocol.preface else { throw Failure(description: "bad server preface") }
    }

    deinit { close(fd) }

    private func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                throw Failure(description: "send: errno \(errno)")
            }
            offset += n
        }
    }

    private func read(count: Int) throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while buffer.count < count {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { throw Failure(description: "connection closed") }
            buffer.append(contentsOf: chunk[0..<n])
        }
        let result = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return result
    }

    /// Sends a request frame without waiting for its response.
    func sendRequest<Message: WireMessage>(callID: UInt32, path: String, _ message: Message, token: String? = nil,
                                           metadata: [(key: String, value: String)] = []) throws {
        var request = Request()
        request.method = path
        request.message = message.encode()
        if let token {
            var entry = Metadata()
            entry.key = "authorization"
            entry.value = "Bearer \(token)"
            request.metadata = [entry]
        }
        request.metadata += metadata.map { Metadata(key: $0.key, value: $0.value) }
        var frame = Frame()
        frame.callID = callID
        frame.kind = .request(request)
        var bytes: [UInt8] = []
        frame.encode(appendingTo: &bytes, lengthPrefixed: true)
        try send(bytes)
    }

    /// Sends a request frame carrying `message` as given (any bytes), without waiting.
    func sendRawRequest(callID: UInt32, path: String, message: [UInt8], metadata: [(key: String, value: String)] = []) throws {
        var request = Request()
        request.method = path
        request.message = message
        request.metadata = metadata.map { Metadata(key: $0.key, value: $0.value) }
        var frame = Frame()
        frame.callID = callID
        frame.kind = .request(request)
        var bytes: [UInt8] = []
        frame.encode(appendingTo: &bytes, lengthPrefixed: true)
        try send(bytes)
    }

    /// Sends any frame.
    func sendFrame(_ frame: Frame) throws {
        var bytes: [UInt8] = []
        frame.encode(appendingTo: &bytes, lengthPrefixed: true)
        try send(bytes)
    }

    /// The next frame of any kind.
    func nextFrame() throws -> Frame {
        let header = try read(count: 4)
        let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
        return try Frame(decoding: try read(count: length))
    }

    /// The next response frame (other frames, such as settings, are skipped).
    func nextResponse() throws -> (callID: UInt32, code: UInt32, message: String, body: [UInt8]) {
        while true {
            let header = try read(count: 4)
            let length = Int(header[0]) << 24 | Int(header[1]) << 16 | Int(header[2]) << 8 | Int(header[3])
            let frame = try Frame(decoding: try read(count: length))
            if case .response(let response)? = frame.kind {
                return (frame.callID, response.status?.code ?? 0, response.status?.message ?? "", response.message)
            }
        }
    }

    /// One call, waited for.
    func call<Request: WireMessage, Response: WireMessage>(_ method: MethodDescriptor<Request, Response>, _ request: Request,
                                                            token: String? = nil, metadata: [(key: String, value: String)] = [],
                                                            callID: UInt32 = 1) throws -> Response {
        try sendRequest(callID: callID, path: method.path, request, token: token, metadata: metadata)
        let response = try nextResponse()
        guard response.code == 0 else {
            throw RPCError(StatusCode(wireValue: response.code), response.message)
        }
        return try Response(decoding: response.body)
    }
}
