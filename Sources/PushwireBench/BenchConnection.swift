import COpenSSL
import Glibc
import PushwireClient
import PushwireSystem
import PushwireWire

/// One pipelined, multiplexed connection of the harness: its socket, its output and input
/// buffers, and the table of calls in flight. Owned by exactly one `LoadWorker`.
final class BenchConnection {
    /// One call in flight.
    struct Slot {
        var callID: UInt32 = 0
        var busy = false
        var measured = false
        var kind: UInt8 = 0
        /// When the call was sent or, under a fixed rate, when it was meant to be sent.
        var start: UInt64 = 0
    }

    let fd: Int32
    /// TLS over `fd` (`--tls`); nil in clear text.
    let ssl: OpaquePointer?
    /// Under TLS: whether the socket's last read(2) left it empty (`cossl_watch_socket_reads`).
    private let socketDrained: UnsafeMutablePointer<Int32>
    var out: [UInt8] = []
    var outOffset = 0
    private var input: UnsafeMutableRawPointer
    private var inputCapacity: Int
    private var inputStart = 0
    private var inputEnd = 0
    private var prefaceSeen = false

    var slots: [Slot]
    let slotMask: UInt32
    var nextCallID: UInt32 = 1
    var inFlight = 0
    /// Calls still to measure under `--requests`; `Int.max` under `--duration`.
    var quota: Int
    /// Under `--rate`: the intended send time of this connection's next call, and the spacing.
    var nextIntended: UInt64 = 0
    var interval: UInt64 = 0
    var closed = false
    /// Set by GoAway: send nothing more.
    var draining = false
    var scheduleIndex = 0
    /// This connection's place among the run's connections, and how many patched calls it has
    /// sent: call n of connection i uses counter i + n × connections, unique over the run.
    let index: Int
    var sequence: UInt64 = 0

    static let preface = WireProtocol.preface
    static let maxFrame = 64 << 20

    init(fd: Int32, concurrency: Int, quota: Int, index: Int = 0, ssl: OpaquePointer? = nil) {
        self.fd = fd
        self.ssl = ssl
        socketDrained = .allocate(capacity: 1)
        socketDrained.initialize(to: 0)
        if let ssl { cossl_watch_socket_reads(ssl, socketDrained) }
        self.index = index
        var tableSize = 1
        while tableSize < concurrency * 2 { tableSize <<= 1 }
        slots = [Slot](repeating: Slot(), count: tableSize)
        slotMask = UInt32(tableSize - 1)
        self.quota = quota
        inputCapacity = 256 << 10
        input = UnsafeMutableRawPointer.allocate(byteCount: inputCapacity, alignment: 16)
        out.reserveCapacity(64 << 10)
        out.append(contentsOf: Self.preface)
    }

    deinit {
        if let ssl { SSL_free(ssl) }
        socketDrained.deallocate()
        input.deallocate()
        Syscall.close(fd)
    }

    /// Takes a call id whose slot is free. Ids increase (GoAway's `last_call_id` relies on it);
    /// ids whose slot still holds a slow call are skipped, which the half-empty table makes rare.
    @inline(__always)
    func takeSlot() -> Int {
        while true {
            let id = nextCallID
            nextCallID = nextCallID &+ 1
            if nextCallID == 0 { nextCallID = 1 }
            let index = Int(id & slotMask)
            if !slots[index].busy {
                slots[index].callID = id
                slots[index].busy = true
                return index
            }
        }
    }

    /// Frees the slot of `callID` and returns it; nil for an unknown or finished call.
    @inline(__always)
    func finish(callID: UInt32) -> Slot? {
        let index = Int(callID & slotMask)
        guard slots[index].busy, slots[index].callID == callID else { return nil }
        slots[index].busy = false
        inFlight -= 1
        return slots[index]
    }

    /// Writes what the output buffer holds. Returns false when the connection failed.
    func flush() -> Bool {
        while outOffset < out.count {
            if let ssl {
                switch out.withUnsafeBytes({ BenchTLS.write(ssl, from: UnsafeRawBufferPointer(rebasing: $0[outOffset...])) }) {
                case .bytes(let n): outOffset += n
                case .wouldBlock: return true
                case .closed: return false
                }
                continue
            }
            let result = try? out.withUnsafeBytes { raw in
                try Syscall.write(fd, from: UnsafeRawBufferPointer(rebasing: raw[outOffset...]))
            }
            switch result {
            case .processed(let n) where n > 0: outOffset += n
            case .wouldBlock: return true
            default: return false
            }
        }
        out.removeAll(keepingCapacity: true)
        outOffset = 0
        return true
    }

    var wantsWrite: Bool { outOffset < out.count }

    enum ReadResult {
        case ok
        case closed
        case protocolError(LoadWorker.LocalFailure)
    }

    /// Reads once and hands every complete frame to `onFrame`; under TLS, reads on while OpenSSL
    /// holds records (poll reports the socket's bytes, not those OpenSSL has taken in).
    func readFrames(_ onFrame: (UnsafeRawBufferPointer) -> Bool) -> ReadResult {
        guard let ssl else { return readOnce(onFrame) }
        while true {
            let result = readOnce(onFrame)
            guard case .ok = result, tlsStoppedForRoom, SSL_has_pending(ssl) == 1 else { return result }
        }
    }

    /// Set when a TLS read stopped because the input buffer had no room for another record.
    private var tlsStoppedForRoom = false

    private func readOnce(_ onFrame: (UnsafeRawBufferPointer) -> Bool) -> ReadResult {
        if inputCapacity - inputEnd < 64 << 10 { compact(needing: 64 << 10) }
        var n: Int
        if let ssl {
            // The context reads ahead: one read(2) takes every record that has arrived, and the
            // records OpenSSL holds open without a syscall. Stop once the socket is drained and
            // OpenSSL holds nothing, rather than read(2) again for an EAGAIN.
            n = 0
            tlsStoppedForRoom = false
            while true {
                guard inputCapacity - inputEnd - n >= 16 << 10 else {
                    tlsStoppedForRoom = true
                    break
                }
                switch BenchTLS.read(ssl, into: UnsafeMutableRawBufferPointer(start: input + inputEnd + n, count: inputCapacity - inputEnd - n)) {
                case .bytes(let count):
                    n += count
                    if socketDrained.pointee != 0, SSL_has_pending(ssl) == 0 { break }
                    continue
                case .wouldBlock: break
                case .closed: if n == 0 { return .closed }
                }
                break
            }
            if n == 0 { return .ok }
        } else {
            switch try? Syscall.read(fd, into: UnsafeMutableRawBufferPointer(start: input + inputEnd, count: inputCapacity - inputEnd)) {
            case .processed(let count) where count > 0: n = count
            case .wouldBlock: return .ok
            default: return .closed  // end of stream, or an error
            }
        }
        inputEnd += n
        if !prefaceSeen {
            guard inputEnd - inputStart >= Self.preface.count else { return .ok }
            for i in 0..<Self.preface.count where input.load(fromByteOffset: inputStart + i, as: UInt8.self) != Self.preface[i] {
                return .protocolError(.badPreface)
            }
            inputStart += Self.preface.count
            prefaceSeen = true
        }
        while inputEnd - inputStart >= 4 {
            let p = input + inputStart
            let length =
                Int(p.load(as: UInt8.self)) << 24 | Int(p.load(fromByteOffset: 1, as: UInt8.self)) << 16
                | Int(p.load(fromByteOffset: 2, as: UInt8.self)) << 8 | Int(p.load(fromByteOffset: 3, as: UInt8.self))
            guard length <= Self.maxFrame else { return .protocolError(.frameTooLarge) }
            guard inputEnd - inputStart >= 4 + length else {
                if 4 + length > inputCapacity - inputStart { compact(needing: 4 + length) }
                break
            }
            if !onFrame(UnsafeRawBufferPointer(start: p + 4, count: length)) { return .protocolError(.malformedFrame) }
            inputStart += 4 + length
        }
        if inputStart == inputEnd {
            inputStart = 0
            inputEnd = 0
        }
        return .ok
    }

    /// Moves unread bytes to the front, growing the buffer when `needing` bytes would not fit.
    private func compact(needing: Int) {
        let pending = inputEnd - inputStart
        if pending + needing > inputCapacity {
            var capacity = inputCapacity
            while capacity < pending + needing { capacity *= 2 }
            let bigger = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            bigger.copyMemory(from: input + inputStart, byteCount: pending)
            input.deallocate()
            input = bigger
            inputCapacity = capacity
        } else if inputStart > 0 {
            memmove(input, input + inputStart, pending)
        }
        inputStart = 0
        inputEnd = pending
    }
}
