import Foundation
import Glibc
import PushwireSystem
import PushwireWire

/// A request as the fake server saw it.
public struct SeenRequest: Sendable {
    public var callID: UInt32
    public var method: String
    public var timeoutMS: UInt32
    public var metadata: [String: String]
    public var message: [UInt8]
}

/// A tiny Pushwire server over a real socket, for testing the client without the runtime:
/// answers the preface and Settings, then hands every request to `handler` and records cancels.
public final class FakeServer: @unchecked Sendable {
    // @unchecked: mutable state is guarded by `lock`.
    /// One accepted connection.
    public final class Peer: @unchecked Sendable {
        // @unchecked: writes are serialized by `lock`; `fd` is immutable.
        public let fd: Int32
        private let lock = NSLock()
        /// While the server handles the frames of one read, responses sent from the handler's
        /// thread are gathered here and written once, like a real server's coalesced writes.
        private var batch: [UInt8]?
        public init(fd: Int32) { self.fd = fd }

        public func send(_ bytes: [UInt8]) {
            lock.lock(); defer { lock.unlock() }
            if batch != nil {
                batch!.append(contentsOf: bytes)
                return
            }
            bytes.withUnsafeBytes { _ = try? Syscall.sendAll(fd, $0) }
        }

        public func beginBatch() {
            lock.withLock { if batch == nil { batch = [] } }
        }

        public func endBatch() {
            lock.lock(); defer { lock.unlock() }
            if let pending = batch, !pending.isEmpty {
                pending.withUnsafeBytes { _ = try? Syscall.sendAll(fd, $0) }
            }
            batch = nil
        }

        public func respond(_ callID: UInt32, code: StatusCode = .ok, message: String = "", body: [UInt8] = []) {
            send(FakeServer.responseFrame(callID: callID, code: code, message: message, body: body))
        }

        public func goAway(lastCallID: UInt32, code: StatusCode = .ok, message: String = "") {
            var out: [UInt8] = []
            Frame.goAway(lastCallID: lastCallID, status: code, message: message).encode(appendingTo: &out, lengthPrefixed: true)
            send(out)
        }

        /// Drops the connection abruptly.
        public func kill() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
    }

    public let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var _cancels: [UInt32] = []
    private var _peers: [Peer] = []
    private var _requests: [SeenRequest] = []
    private let handler: @Sendable (Peer, SeenRequest) -> Void
    public let maxConcurrentCalls: UInt32
    /// Answers the preface with a GoAway instead of Settings, like a server at its connection limit.
    public let refuseConnections: Bool

    public var cancels: [UInt32] { lock.withLock { _cancels } }
    public var peers: [Peer] { lock.withLock { _peers } }
    public var requests: [SeenRequest] { lock.withLock { _requests } }
    public var address: String { "127.0.0.1:\(port)" }

    public init(maxConcurrentCalls: UInt32 = 1024, refuseConnections: Bool = false, handler: @escaping @Sendable (Peer, SeenRequest) -> Void) throws {
        self.refuseConnections = refuseConnections
        self.handler = handler
        self.maxConcurrentCalls = maxConcurrentCalls
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, 4)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 64) == 0 else { throw SystemError("bind", errno: errno) }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &len) } }
        port = UInt16(bigEndian: addr.sin_port)
        self.listener = listener
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    public func stop() {
        _ = Glibc.shutdown(listener, Int32(SHUT_RDWR))
        for peer in peers { peer.kill() }
    }

    private func acceptLoop() {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 { return }
            let peer = Peer(fd: fd)
            lock.withLock { _peers.append(peer) }
            let thread = Thread { [self] in serve(peer) }
            thread.start()
        }
    }

    private func serve(_ peer: Peer) {
        defer { close(peer.fd) }
        var decoder = FrameDecoder(maxFrameSize: 1 << 24, expectsPreface: true)
        var hello = WireProtocol.preface
        if refuseConnections {
            Frame.goAway(lastCallID: 0, status: .resourceExhausted, message: "too many connections").encode(appendingTo: &hello, lengthPrefixed: true)
            peer.send(hello)
            return
        }
        Frame.settings(.server(name: "fake", version: "0.0.1", maxFrameSize: 1 << 22, maxConcurrentCalls: Int(maxConcurrentCalls)))
            .encode(appendingTo: &hello, lengthPrefixed: true)
        peer.send(hello)
        while true {
            do {
                peer.beginBatch()
                while let frame = try decoder.nextFrame() {
                    switch frame.kind {
                    case .request(let r):
                        var metadata: [String: String] = [:]
                        for m in r.metadata { metadata[m.key] = m.value }
                        let seen = SeenRequest(callID: frame.callID, method: r.method, timeoutMS: r.timeoutMS, metadata: metadata, message: r.message)
                        lock.withLock { _requests.append(seen) }
                        handler(peer, seen)
                    case .cancel:
                        let id = frame.callID
                        lock.withLock { _cancels.append(id) }
                    case .ping(let ping):
                        var pong: [UInt8] = []
                        Frame.pong(ping.payload).encode(appendingTo: &pong, lengthPrefixed: true)
                        peer.send(pong)
                    default:
                        break
                    }
                }
                peer.endBatch()
                let n = try decoder.withWritableTail(minimumCapacity: 16 * 1024) { try Syscall.blockingRead(peer.fd, into: $0) }
                if n == 0 { return }
            } catch {
                return
            }
        }
    }

    public static func responseFrame(callID: UInt32, code: StatusCode, message: String, body: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        Frame.response(callID: callID, status: code, message: message, body: body).encode(appendingTo: &out, lengthPrefixed: true)
        return out
    }
}
