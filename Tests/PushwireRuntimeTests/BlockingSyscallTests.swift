import Glibc
import XCTest

@testable import PushwireRuntime

/// The System layer's calls for blocking sockets, name resolution and ppoll, which the client and
/// the load generator use.
final class BlockingSyscallTests: XCTestCase {
    func testHostPortParsing() throws {
        XCTAssertEqual(try HostPort(parsing: "127.0.0.1:7355"), try HostPort(parsing: ":7355"))
        let v6 = try HostPort(parsing: "[::1]:80")
        XCTAssertEqual(v6.host, "::1")
        XCTAssertEqual(v6.port, 80)
        XCTAssertEqual(v6.description, "[::1]:80")
        XCTAssertEqual(try HostPort(parsing: "localhost:1").description, "localhost:1")
        XCTAssertEqual(try HostPort(parsing: "0.0.0.0:0", allowsPortZero: true).port, 0)
        for bad in ["nohost", "h:0", "h:65536", "h:x", "[::1:80", "[::1]80"] {
            XCTAssertThrowsError(try HostPort(parsing: bad), bad) { XCTAssertTrue($0 is AddressError, bad) }
        }
    }

    func testConnectAcceptSendReadShutdown() throws {
        let (listener, port) = try Syscall.listenBlocking(on: "127.0.0.1:0")
        defer { Syscall.close(listener) }
        XCTAssertNotEqual(port, 0)
        let client = try Syscall.connect(to: "127.0.0.1:\(port)", timeout: .seconds(5))
        defer { Syscall.close(client) }
        let server = try Syscall.blockingAccept(listener)
        defer { Syscall.close(server) }

        let message = Array("hello".utf8)
        try message.withUnsafeBytes { try Syscall.sendAll(client, $0) }
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = try buffer.withUnsafeMutableBytes { try Syscall.blockingRead(server, into: $0) }
        XCTAssertEqual(Array(buffer[..<count]), message)

        // Non-blocking: nothing to read is a value, not an error.
        Syscall.setNonBlocking(server)
        let result = try buffer.withUnsafeMutableBytes { try Syscall.read(server, into: $0) }
        guard case .wouldBlock = result else { return XCTFail("expected wouldBlock, got \(result)") }
        Syscall.setNonBlocking(server, false)

        // ppoll: times out with nothing ready, then sees the data.
        var fds = [pollfd(fd: server, events: Int16(POLLIN), revents: 0)]
        XCTAssertEqual(try Syscall.poll(&fds, nanoseconds: 2_000_000), 0)
        try message.withUnsafeBytes { try Syscall.sendAll(client, $0) }
        XCTAssertEqual(try Syscall.poll(&fds, nanoseconds: 2_000_000_000), 1)
        _ = try buffer.withUnsafeMutableBytes { try Syscall.blockingRead(server, into: $0) }

        // SO_RCVTIMEO: a blocking read that waits too long throws EAGAIN.
        Syscall.setTimeout(server, option: SO_RCVTIMEO, .milliseconds(20))
        XCTAssertThrowsError(try buffer.withUnsafeMutableBytes { try Syscall.blockingRead(server, into: $0) }) { error in
            XCTAssertEqual((error as? SystemError)?.errno, EAGAIN)
        }
        Syscall.setTimeout(server, option: SO_RCVTIMEO, nil)

        // Shutdown: the peer reads end of stream.
        Syscall.shutdown(client)
        XCTAssertEqual(try buffer.withUnsafeMutableBytes { try Syscall.blockingRead(server, into: $0) }, 0)
    }

    func testConnectFailures() throws {
        let (listener, port) = try Syscall.listenBlocking(on: "127.0.0.1:0")
        Syscall.close(listener)
        XCTAssertThrowsError(try Syscall.connect(to: "127.0.0.1:\(port)", timeout: .seconds(5))) { error in
            XCTAssertEqual((error as? SystemError)?.errno, ECONNREFUSED, "\(error)")
        }
        XCTAssertThrowsError(try Syscall.connect(to: "127.0.0.1:\(port)", timeout: nil)) { error in
            XCTAssertEqual((error as? SystemError)?.errno, ECONNREFUSED, "\(error)")
        }
        XCTAssertThrowsError(try Syscall.connect(to: "host.invalid:1", timeout: .seconds(5))) { error in
            XCTAssertTrue(error is AddressError, "\(error)")
        }
        XCTAssertThrowsError(try Syscall.connect(to: "127.0.0.1:0", timeout: .seconds(5))) { error in
            XCTAssertTrue(error is AddressError, "\(error)")
        }
    }

    func testWriteAllToAPipe() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { Syscall.close(ends[0]) }
        let bytes = [UInt8](repeating: 0x5A, count: 1000)
        try bytes.withUnsafeBytes { try Syscall.writeAll(ends[1], $0) }
        Syscall.close(ends[1])
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try Syscall.blockingRead(ends[0], into: $0) }
            if count == 0 { break }
            received += buffer[..<count]
        }
        XCTAssertEqual(received, bytes)
    }

    func testClocksMove() {
        let start = monotonicNanos()
        XCTAssertGreaterThanOrEqual(monotonicNanos(), start)
        XCTAssertGreaterThanOrEqual(threadCPUSeconds(), 0)
    }
}
