import Glibc
import PushwireClient
import PushwireWire

/// A minimal Pushwire server for measuring the harness itself: it answers the preface with its
/// own and a Settings frame, every Ping with a Pong, `Health/Check` with SERVING and every other
/// request with an empty OK. One blocking thread per connection, one write per read: about the
/// least work a server can do per call, so the harness's ceiling shows.
enum LoopbackServer {
    static let healthPath = Array(Methods.Health.check.path.utf8)
    static let servingReply = HealthCheckResponse(status: .serving).encode()

    /// Listens on `address`, prints `listening on host:port` to stdout and serves until killed.
    static func run(listen address: String) throws(SystemError) {
        let listener = try bindListener(address)
        acceptForever(listener)
    }

    /// Binds and listens on `address`; prints the bound address.
    static func bindListener(_ address: String) throws(SystemError) -> Int32 {
        guard let (host, port) = splitHostPort(address) else { throw SystemError(call: "parse \(address)", errno: EINVAL) }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, port, &hints, &list) == 0, let info = list else {
            throw SystemError(call: "getaddrinfo \(host)", errno: EINVAL)
        }
        defer { freeaddrinfo(list) }
        let listener = socket(info.pointee.ai_family, info.pointee.ai_socktype, 0)
        guard listener >= 0 else { throw SystemError(call: "socket", errno: errno) }
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(listener, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else { throw SystemError(call: "bind", errno: errno) }
        guard Glibc.listen(listener, 1024) == 0 else { throw SystemError(call: "listen", errno: errno) }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let boundPort = withUnsafeMutablePointer(to: &storage) { pointer -> UInt16 in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = getsockname(listener, $0, &length) }
            if pointer.pointee.ss_family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
        }
        let shown = host.contains(":") ? "[\(host)]:\(boundPort)" : "\(host):\(boundPort)"
        // Unbuffered, so a script reading our stdout through a pipe sees it at once.
        var line = Array("listening on \(shown)\n".utf8)
        _ = line.withUnsafeMutableBytes { writeAll(1, UnsafeRawBufferPointer($0)) }
        return listener
    }

    /// Accepts connections and serves each on its own thread; returns only if accept fails hard.
    static func acceptForever(_ listener: Int32) {
        var one: Int32 = 1
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED || errno == EMFILE { continue }
                return
            }
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if !spawn(fd) { close(fd) }
        }
    }

    /// Serves `fd` on a new detached thread; false when no thread could be started.
    static func spawn(_ fd: Int32) -> Bool {
        var thread = pthread_t()
        // The descriptor travels in the pointer-sized argument itself: nothing is shared.
        let started = pthread_create(&thread, nil, loopbackThreadMain, UnsafeMutableRawPointer(bitPattern: Int(fd) + 1))
        guard started == 0 else { return false }
        pthread_detach(thread)
        return true
    }

    /// Serves one connection until the peer closes it or breaks the protocol.
    static func serve(_ fd: Int32) {
        defer { close(fd) }
        var out = WireProtocol.preface
        LoadTestFrames.appendSettingsFrame(maxFrameSize: 4 << 20, maxConcurrentCalls: 65_535, serverName: "pushwire-bench loopback", to: &out)
        guard out.withUnsafeBytes({ writeAll(fd, $0) }) else { return }
        out.removeAll(keepingCapacity: true)
        var input = [UInt8](repeating: 0, count: 1 << 20)
        var start = 0
        var end = 0
        var prefaceSeen = false
        while true {
            if end == input.count {
                if start > 0 {
                    input.replaceSubrange(0..<(end - start), with: input[start..<end])
                    end -= start
                    start = 0
                } else {
                    input.append(contentsOf: [UInt8](repeating: 0, count: input.count))
                }
            }
            let n = input.withUnsafeMutableBytes { raw -> Int in
                guard let base = raw.baseAddress else { return -1 }
                return read(fd, base + end, raw.count - end)
            }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return }
            end += n
            if !prefaceSeen {
                let size = WireProtocol.preface.count
                guard end - start >= size else { continue }
                guard Array(input[start..<start + size]) == WireProtocol.preface else { return }
                start += size
                prefaceSeen = true
            }
            let ok = input.withUnsafeBytes { raw -> Bool in
                while end - start >= 4 {
                    let length = Int(raw[start]) << 24 | Int(raw[start + 1]) << 16 | Int(raw[start + 2]) << 8 | Int(raw[start + 3])
                    guard length <= 4 << 20 else { return false }
                    guard end - start >= 4 + length else { break }
                    let frame = UnsafeRawBufferPointer(rebasing: raw[(start + 4)..<(start + 4 + length)])
                    switch LoadTestFrames.scan(frame) {
                    case .request(let callID, let method):
                        let isHealth = method.count == healthPath.count && zip(healthPath, frame[method]).allSatisfy { $0 == $1 }
                        LoadTestFrames.appendResponseFrame(callID: callID, code: 0, message: isHealth ? servingReply : [], to: &out)
                    case .ping(let payload):
                        LoadTestFrames.appendPongFrame(payload: payload, to: &out)
                    case nil:
                        return false
                    default:
                        break
                    }
                    start += 4 + length
                }
                return true
            }
            if start == end {
                start = 0
                end = 0
            }
            if !out.isEmpty {
                guard out.withUnsafeBytes({ writeAll(fd, $0) }) else { return }
                out.removeAll(keepingCapacity: true)
            }
            if !ok { return }
        }
    }
}

/// The entry point of a loopback connection thread; the argument is the descriptor plus one.
private func loopbackThreadMain(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    LoopbackServer.serve(Int32(Int(bitPattern: argument) - 1))
    return nil
}
