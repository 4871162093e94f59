#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import Dispatch
import PushwireSystem
import PushwireTestSupport
import PushwireWire
import Synchronization
import XCTest
@testable import PushwireRuntime

/// How the server reads TLS (TLS/TLSSession.swift): one read takes every record that has arrived
/// (the context reads ahead), it stops once the socket is drained without a read(2) that returns
/// EAGAIN, and nothing is lost to edge triggering when records arrive split at any byte.
final class TLSReadTests: XCTestCase {
    /// A server session on one end of a socket pair, handshaken with a test client on the other,
    /// whose records are then sealed into memory (`seal`) and written by the test as it likes.
    private final class Pair {
        let serverFD: Int32
        let clientFD: Int32
        let session: TLSSession
        let client: OpaquePointer
        private let sealed: OpaquePointer

        init() throws {
            var fds: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0 else { throw SystemError("socketpair", errno: errno) }
            let serverFD = fds[0], clientFD = fds[1]
            self.serverFD = serverFD
            self.clientFD = clientFD
            _ = fcntl(serverFD, F_SETFL, fcntl(serverFD, F_GETFL) | O_NONBLOCK)
            let context = try TestTLS.serverContext()
            guard let session = TLSSession(context: context, fd: serverFD) else { throw PairFailure("no session") }
            self.session = session
            // The client's blocking handshake runs on its own thread while this one drives the
            // server's, as the event loop would.
            let handshake = HandshakeResult()
            DispatchQueue.global().async {
                let result: Result<UInt, PairFailure>
                do {
                    result = .success(UInt(bitPattern: try TestTLS.Client().handshake(fd: clientFD)))
                } catch {
                    result = .failure(PairFailure("\(error)"))
                }
                handshake.value.withLock { $0 = result }
            }
            var buffer = [UInt8](repeating: 0, count: 64)
            let deadline = monotonicNanos() + 10_000_000_000
            var clientResult: Result<UInt, PairFailure>?
            while clientResult == nil || !session.isHandshakeDone, monotonicNanos() < deadline {
                var poller = pollfd(fd: serverFD, events: Int16(POLLIN), revents: 0)
                _ = poll(&poller, 1, 10)
                if case .failed(let reason) = buffer.withUnsafeMutableBytes({ session.read(into: $0) }) {
                    throw PairFailure(reason)
                }
                clientResult = handshake.value.withLock { $0 }
            }
            guard let result = clientResult else { throw PairFailure("the handshake did not end") }
            guard let client = OpaquePointer(bitPattern: try result.get()) else { throw PairFailure("no client") }
            self.client = client
            // From now on the client's records go to memory, for the test to write in any pieces.
            guard let memory = BIO_new(BIO_s_mem()) else { throw PairFailure("BIO_new") }
            SSL_set0_wbio(client, memory)
            sealed = memory
        }

        deinit {
            SSL_free(client)
            close(serverFD)
            close(clientFD)
        }

        /// `text` as one TLS record of the client's.
        func seal(_ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { SSL_write(client, $0.baseAddress, Int32($0.count)) }
            return takeSealed()
        }

        /// The client's close_notify alert.
        func closeNotify() -> [UInt8] {
            _ = SSL_shutdown(client)
            return takeSealed()
        }

        private func takeSealed() -> [UInt8] {
            var out = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(sealed)))
            let n = out.withUnsafeMutableBytes { BIO_read(sealed, $0.baseAddress, Int32($0.count)) }
            return Array(out[0..<max(0, Int(n))])
        }

        func send(_ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.send(clientFD, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { return }
                offset += n
            }
        }

        /// One server read into `capacity` bytes, once the socket is readable (bounded wait).
        func read(capacity: Int = 64 * 1024, waitMS: Int32 = 2000) -> (StreamRead, String) {
            var poller = pollfd(fd: serverFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&poller, 1, waitMS)
            var buffer = [UInt8](repeating: 0, count: capacity)
            let outcome = buffer.withUnsafeMutableBytes { session.read(into: $0) }
            if case .bytes(let n) = outcome { return (outcome, String(decoding: buffer[0..<n], as: UTF8.self)) }
            return (outcome, "")
        }
    }

    func testOneReadTakesEveryRecordThatHasArrivedAndStopsAtTheDrainedSocket() throws {
        let pair = try Pair()
        pair.send(pair.seal("one ") + pair.seal("two ") + pair.seal("three"))
        let (outcome, text) = pair.read()
        guard case .bytes = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(text, "one two three", "three records in one read")
        XCTAssertFalse(pair.session.lastReadMayHaveLeftMore, "the socket is drained and OpenSSL holds nothing")
        guard case .wouldBlock = pair.read(waitMS: 0).0 else { return XCTFail("more than was sent") }
    }

    func testAFullBufferLeavesTheRestForTheNextRead() throws {
        let pair = try Pair()
        pair.send(pair.seal("one ") + pair.seal("two ") + pair.seal("three"))
        let (first, head) = pair.read(capacity: 6)
        guard case .bytes(6) = first else { return XCTFail("\(first)") }
        XCTAssertEqual(head, "one tw")
        XCTAssertTrue(pair.session.lastReadMayHaveLeftMore, "stopped with records still held")
        let (second, rest) = pair.read(waitMS: 0)  // OpenSSL holds it: the socket is empty
        guard case .bytes = second else { return XCTFail("\(second)") }
        XCTAssertEqual(rest, "o three")
        XCTAssertFalse(pair.session.lastReadMayHaveLeftMore)
    }

    func testAPartialRecordWaitsForItsRest() throws {
        let pair = try Pair()
        let record = pair.seal("hello")
        pair.send(Array(record[0..<10]))
        guard case .wouldBlock = pair.read().0 else { return XCTFail("half a record was opened") }
        pair.send(Array(record[10...]))
        let (outcome, text) = pair.read()
        guard case .bytes = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(text, "hello")
    }

    func testAnEndAfterRecordsIsReportedByTheNextRead() throws {
        let pair = try Pair()
        pair.send(pair.seal("bye") + pair.closeNotify())
        let (outcome, text) = pair.read()
        guard case .bytes = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(text, "bye")
        XCTAssertTrue(pair.session.lastReadMayHaveLeftMore, "the reader must read again to see the end")
        guard case .end = pair.read(waitMS: 0).0 else { return XCTFail("no end after close_notify") }
        guard case .end = pair.read(waitMS: 0).0 else { return XCTFail("the end is reported again") }
    }

    /// End to end: pings sealed one record each and written in pieces of every size, some of
    /// them a byte, with pauses: every pong comes back (a reader that stopped early on a drained
    /// socket while OpenSSL held a record would wait for an event that never comes).
    func testPingsInRecordsSplitAnywhereAreAllAnswered() throws {
        let tls = try TestTLS.serverContext()
        let (server, address) = try startTestServer { $0.tls = tls }
        defer { stop(server) }
        let client = try TestClient(address, tls: TestTLS.Client())
        guard let ssl = client.ssl, let memory = BIO_new(BIO_s_mem()) else { return XCTFail("no TLS client") }
        SSL_set0_wbio(ssl, memory)
        let count = 300
        var cipher: [UInt8] = []
        for payload in 1...count {
            var frame: [UInt8] = []
            Frame.ping(UInt64(payload)).encode(appendingTo: &frame, lengthPrefixed: true)
            _ = frame.withUnsafeBytes { SSL_write(ssl, $0.baseAddress, Int32($0.count)) }
            var sealed = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(memory)))
            _ = sealed.withUnsafeMutableBytes { BIO_read(memory, $0.baseAddress, Int32($0.count)) }
            cipher += sealed
        }
        // Pieces from a byte to several records, so that records end and split at every offset.
        let pieces = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377]
        var offset = 0
        var round = 0
        while offset < cipher.count {
            let end = min(cipher.count, offset + pieces[round % pieces.count])
            let chunk = Array(cipher[offset..<end])
            _ = chunk.withUnsafeBytes { Glibc.send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            offset = end
            round += 1
            if round % 3 == 0 { usleep(300) }  // the server reads some pieces alone
        }
        var answered = Set<UInt64>()
        while answered.count < count {
            guard let frame = try client.readFrame(timeout: 10) else { return XCTFail("closed after \(answered.count) pongs") }
            if case .pong(let pong)? = frame.kind { answered.insert(pong.payload) }
        }
        XCTAssertEqual(answered, Set((1...count).map(UInt64.init)))
    }
}

/// Why a test's socket pair could not be set up.
private struct PairFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The client's side of a test handshake, set by the thread that ran it.
private final class HandshakeResult: Sendable {
    let value = Mutex<Result<UInt, PairFailure>?>(nil)
}
