import Glibc
import PushwireClient
import PushwireSystem
import PushwireWire

/// A minimal Pushwire server for measuring the harness itself: it answers the preface with its
/// own and a Settings frame, every Ping with a Pong, `Health/Check` with SERVING and every other
/// request with an empty OK. One blocking thread per connection, one write per read: about the
/// least work a server can do per call, so the harness's ceiling shows.
enum LoopbackServer {
    static let healthPath = Array(Methods.Health.check.path.utf8)
    static let servingReply = HealthCheckResponse(status: .serving).encode()

    /// Listens on `address`, prints `listening on host:port` to stdout and serves until killed.
    static func run(listen address: String) throws {
        let listener = try bindListener(address)
        acceptForever(listener)
    }

    /// Binds and listens on `address`; prints the bound address.
    static func bindListener(_ address: String) throws -> Int32 {
        let (listener, boundPort) = try Syscall.listenBlocking(on: address)
        var shown = try HostPort(parsing: address, allowsPortZero: true)
        shown.port = boundPort
        // Unbuffered, so a script reading our stdout through a pipe sees it at once.
        let line = Array("listening on \(shown)\n".utf8)
        _ = try? line.withUnsafeBytes { bytes in try Syscall.writeAll(1, bytes) }
        return listener
    }

    /// Accepts connections and serves each on its own thread; returns only if accept fails hard.
    static func acceptForever(_ listener: Int32) {
        while true {
            let fd: Int32
            do {
                fd = try Syscall.blockingAccept(listener)
            } catch {
                if error.errno == ECONNABORTED || error.errno == EMFILE { continue }
                return
            }
            if !spawn(fd) { Syscall.close(fd) }
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
        defer { Syscall.close(fd) }
        var out = WireProtocol.preface
        // Once per connection, so the generated wrapper (protobuf-c) is fast enough here.
        Frame.settings(Settings(maxFrameSize: 4 << 20, maxConcurrentCalls: 65_535, serverName: "pushwire-bench loopback", protocolVersion: 1))
            .encode(appendingTo: &out, lengthPrefixed: true)
        guard (try? out.withUnsafeBytes({ bytes in try Syscall.sendAll(fd, bytes) })) != nil else { return }
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
            let n = (try? input.withUnsafeMutableBytes { raw in
                try Syscall.blockingRead(fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[end...]))
            }) ?? 0
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
                    switch HotFrames.scan(frame) {
                    case .request(let callID, let method):
                        let isHealth = method.count == healthPath.count && zip(healthPath, frame[method]).allSatisfy { $0 == $1 }
                        HotFrames.appendResponseFrame(callID: callID, status: .ok, message: "", body: isHealth ? servingReply : [], to: &out)
                    case .ping(let payload):
                        HotFrames.appendPongFrame(payload: payload, to: &out)
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
                guard (try? out.withUnsafeBytes({ bytes in try Syscall.sendAll(fd, bytes) })) != nil else { return }
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
