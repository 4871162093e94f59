import Glibc
import PushwireSystem
import PushwireWire

/// A connection that sends many requests before reading their answers.
final class PipelinedConnection {
    private let fd: Int32
    private var input: [UInt8] = []
    private var offset = 0
    private var prefaceSeen = false

    init(target: String) throws {
        fd = try Syscall.connect(to: target, timeout: .seconds(10))
        try send(WireProtocol.preface)
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in try Syscall.sendAll(fd, raw) }
    }

    /// The status code and message of the next response frame (other frames are skipped).
    func nextResponseStatus() throws -> (UInt32, String) {
        while true {
            let frame = try nextFrame()
            if case .response(let response) = frame.kind {
                return (response.status?.code ?? 0, response.status?.message ?? "")
            }
        }
    }

    private func nextFrame() throws -> Frame {
        let preface = WireProtocol.preface
        while true {
            let available = input.count - offset
            if !prefaceSeen, available >= preface.count {
                guard Array(input[offset..<offset + preface.count]) == preface else { throw SetupError(description: "bad preface") }
                offset += preface.count
                prefaceSeen = true
                continue
            }
            if prefaceSeen, available >= 4 {
                let length = Int(input[offset]) << 24 | Int(input[offset + 1]) << 16 | Int(input[offset + 2]) << 8 | Int(input[offset + 3])
                if available >= 4 + length {
                    let body = Array(input[offset + 4..<offset + 4 + length])
                    offset += 4 + length
                    return try Frame(decoding: body)
                }
            }
            if offset > 0 {
                input.removeFirst(offset)
                offset = 0
            }
            var chunk = [UInt8](repeating: 0, count: 256 << 10)
            let n = try chunk.withUnsafeMutableBytes { raw in try Syscall.blockingRead(fd, into: raw) }
            guard n > 0 else { throw SetupError(description: "connection closed") }
            input.append(contentsOf: chunk[0..<n])
        }
    }
}
