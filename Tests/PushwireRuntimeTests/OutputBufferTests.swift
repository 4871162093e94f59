#if canImport(Glibc)
import Glibc
#endif
import PushwireSystem
import XCTest
@testable import PushwireRuntime

/// The output buffer both doors flush through (TLS/OutputBuffer.swift), on a real socket pair:
/// everything in one write when the socket takes it, the rest kept when it would block, big
/// storage given back once drained, a broken peer reported, and the EPOLLOUT interest each door
/// derives from the outcome.
final class OutputBufferTests: XCTestCase {
    /// A non-blocking stream socket pair with small kernel buffers: (the stream's end, the peer's).
    private func socketPair() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw SystemError("socketpair", errno: errno) }
        var small: Int32 = 16 * 1024
        setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        return (fds[0], fds[1])
    }

    /// Reads what `fd` holds now.
    private func drain(_ fd: Int32) -> [UInt8] {
        var got: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return got }
            got += chunk[0..<n]
        }
    }

    func testASmallAnswerGoesInOneWriteAndTheStorageIsKept() throws {
        let (mine, peer) = try socketPair()
        defer { close(peer) }
        var stream = ByteStream(clearText: FileDescriptor(mine))
        defer { stream.close() }
        var output = OutputBuffer()
        output.bytes.append(contentsOf: Array("first answer, second answer".utf8))
        var writes: [Int] = []
        guard case .drained = output.flush(into: stream, sent: { writes.append($0) }) else { return XCTFail("not drained") }
        XCTAssertEqual(writes, [27])
        XCTAssertFalse(output.hasPending)
        XCTAssertEqual(output.pending, 0)
        XCTAssertGreaterThan(output.capacity, 0, "a small buffer is kept for the next answers")
        XCTAssertEqual(String(decoding: drain(peer), as: UTF8.self), "first answer, second answer")
    }

    func testWhatTheSocketDoesNotTakeWaitsAndABigBufferIsGivenBackOnceDrained() throws {
        let (mine, peer) = try socketPair()
        defer { close(peer) }
        var stream = ByteStream(clearText: FileDescriptor(mine))
        defer { stream.close() }
        var output = OutputBuffer()
        let answer = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        output.bytes.append(contentsOf: answer)
        var sent = 0
        guard case .blocked = output.flush(into: stream, sent: { sent += $0 }) else { return XCTFail("a 1 MiB answer fit a 16 KiB socket") }
        XCTAssertGreaterThan(sent, 0)
        XCTAssertEqual(output.pending, answer.count - sent)
        XCTAssertTrue(output.hasPending)
        var received: [UInt8] = []
        let deadline = monotonicNanos() + 10_000_000_000
        var outcome = FlushOutcome.blocked
        while case .blocked = outcome, monotonicNanos() < deadline {
            received += drain(peer)
            outcome = output.flush(into: stream, sent: { sent += $0 })
        }
        received += drain(peer)
        guard case .drained = outcome else { return XCTFail("never drained") }
        XCTAssertEqual(sent, answer.count)
        XCTAssertEqual(received, answer, "every byte once, in order")
        XCTAssertEqual(output.capacity, 0, "storage above \(OutputBuffer.keptCapacity) bytes is given back")
    }

    func testAPeerThatHasGoneIsAFailure() throws {
        let (mine, peer) = try socketPair()
        close(peer)
        var stream = ByteStream(clearText: FileDescriptor(mine))
        defer { stream.close() }
        var output = OutputBuffer()
        output.bytes.append(contentsOf: [1, 2, 3])
        guard case .failed(let reason) = output.flush(into: stream, sent: { _ in XCTFail("nothing was sent") }) else {
            return XCTFail("a closed peer took the bytes")
        }
        XCTAssertTrue(reason.contains("EPIPE") || reason.lowercased().contains("pipe"), reason)
        XCTAssertTrue(output.hasPending, "what was not sent is still counted until the door releases it")
        output.release()
        XCTAssertFalse(output.hasPending)
        XCTAssertEqual(output.capacity, 0)
    }

    func testWritableInterestFollowsTheOutcome() {
        // Asked for while bytes wait, whatever it was.
        XCTAssertTrue(FlushOutcome.blocked.writableInterest(before: false, readWantsWrite: false))
        XCTAssertTrue(FlushOutcome.blocked.writableInterest(before: true, readWantsWrite: false))
        // Dropped once drained, unless a TLS read waits for the socket to take a handshake message.
        XCTAssertFalse(FlushOutcome.drained.writableInterest(before: true, readWantsWrite: false))
        XCTAssertTrue(FlushOutcome.drained.writableInterest(before: true, readWantsWrite: true))
        XCTAssertFalse(FlushOutcome.drained.writableInterest(before: false, readWantsWrite: false))
        // Untouched on a failure: the door closes.
        XCTAssertTrue(FlushOutcome.failed("x").writableInterest(before: true, readWantsWrite: false))
        XCTAssertFalse(FlushOutcome.failed("x").writableInterest(before: false, readWantsWrite: false))
    }
}
