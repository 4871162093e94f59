#if canImport(Glibc)
import Glibc
#endif
import COpenSSL
import Foundation
import PushwireWire
import Synchronization
import XCTest
@testable import PushwireRuntime

/// The server's TLS listener (docs/PROTOCOL.md, TLS): ALPN, versions, a plaintext peer, a stalled
/// handshake, certificate reload, client certificates, and the RPC limits over TLS.
final class TLSServerTests: XCTestCase {
    func startTLSServer(_ context: TLSServerContext? = nil,
                        _ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> (Server, SocketAddress) {
        let tls = try context ?? TestTLS.serverContext()
        return try startTestServer { configuration in
            configuration.tls = tls
            configure(&configuration)
        }
    }

    let health = Methods.Health.check.path

    func testCallsFlowOverTLS13WithALPN() throws {
        let (server, address) = try startTLSServer()
        defer { stop(server) }
        let client = try TestClient(address, tls: TestTLS.Client())
        XCTAssertEqual(client.tlsVersion, "TLSv1.3")
        XCTAssertEqual(client.selectedALPN, "pwire/1")
        XCTAssertEqual(try client.call(health, TestMethods.request("")).code, .ok)
        // A 1 MiB answer crosses many TLS records.
        let big = try client.call(TestMethods.big.path, TestMethods.request("1024"))
        XCTAssertEqual(big.code, .ok)
        XCTAssertGreaterThanOrEqual(big.body.count, 1024 * 1024)
    }

    func testAClientOfferingNoALPNIsServed() throws {
        let (server, address) = try startTLSServer()
        defer { stop(server) }
        let client = try TestClient(address, tls: TestTLS.Client(alpn: []))
        XCTAssertNil(client.selectedALPN)
        XCTAssertEqual(try client.call(health, TestMethods.request("")).code, .ok)
    }

    func testOnlyOtherProtocolsAndTLS11AreRefused() throws {
        let (server, address) = try startTLSServer()
        defer { stop(server) }
        XCTAssertThrowsError(try TestClient(address, tls: TestTLS.Client(alpn: ["h2", "http/1.1"]))) { error in
            XCTAssertTrue("\(error)".contains("no application protocol"), "\(error)")
        }
        XCTAssertThrowsError(try TestClient(address, tls: TestTLS.Client(verify: false, maxVersion: 0x0302))) { error in
            XCTAssertTrue("\(error)".contains("protocol version") || "\(error)".contains("unsupported protocol"), "\(error)")
        }
        // TLS 1.2 is still taken.
        let twelve = try TestClient(address, tls: TestTLS.Client(maxVersion: 0x0303))
        XCTAssertEqual(twelve.tlsVersion, "TLSv1.2")
        XCTAssertEqual(try twelve.call(health, TestMethods.request("")).code, .ok)
    }

    func testAPlaintextClientOnTheTLSPortGetsNoPreface() throws {
        let (server, address) = try startTLSServer()
        defer { stop(server) }
        let plain = try TestClient(address, handshake: false)
        try plain.sendRaw(WireProtocol.preface)
        let answer = try plain.readRawUntilClosed(timeout: 5)
        XCTAssertFalse(answer.starts(with: Array("PWIRE".utf8)), "answered in clear text: \(answer)")
        XCTAssertFalse(String(decoding: answer, as: UTF8.self).contains("PWIRE"))
        // Others are still served.
        XCTAssertEqual(try TestClient(address, tls: TestTLS.Client()).call(health, TestMethods.request("")).code, .ok)
    }

    func testAStalledHandshakeIsDroppedAtTheHandshakeTimeout() throws {
        let context = try TestTLS.serverContext(handshakeTimeout: .milliseconds(500))
        let (server, address) = try startTLSServer(context) { $0.prefaceTimeout = .seconds(30) }
        defer { stop(server) }
        let started = TestClient.now()
        let silent = try TestClient(address, handshake: false)
        // Half a ClientHello's record header: a handshake that starts and never ends.
        let dripping = try TestClient(address, handshake: false)
        try dripping.sendRaw([0x16, 0x03, 0x01])
        // Meanwhile a TLS client is served at once.
        let good = try TestClient(address, tls: TestTLS.Client())
        XCTAssertEqual(try good.call(health, TestMethods.request("")).code, .ok)
        XCTAssertEqual(try silent.readRawUntilClosed(timeout: 5), [])
        _ = try dripping.readRawUntilClosed(timeout: 5)
        let elapsed = TestClient.now() - started
        XCTAssertGreaterThanOrEqual(elapsed, 0.4)
        XCTAssertLessThan(elapsed, 2.0, "dropped at the handshake timeout, not the 30 s preface timeout")
        XCTAssertEqual(try good.call(health, TestMethods.request("")).code, .ok)
    }

    func testClientsClosingRightAfterTheHandshakeDoNotEndTheServer() throws {
        let (server, address) = try startTLSServer()
        defer { stop(server) }
        // Each closes with a reset right after its handshake, while the server is sending its
        // session tickets: the server's writes then meet a closed socket (SIGPIPE unless ignored,
        // which would end this test process).
        for _ in 0..<30 {
            let client = try TestClient(address, handshake: false, tls: TestTLS.Client())
            var linger = linger(l_onoff: 1, l_linger: 0)
            setsockopt(client.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            // Closed (with the reset) as `client` goes at the end of the iteration.
        }
        // The resets reached the server before these connections did: a loop answers a
        // connection's second call in a later round than its first, after every event of the
        // round before (the resets among them). Four connections spread over both loops.
        for _ in 0..<4 {
            let check = try TestClient(address, tls: TestTLS.Client())
            for _ in 0..<2 { XCTAssertEqual(try check.call(health, TestMethods.request("")).code, .ok) }
        }
    }

    func testPlaintextListenerBesideTheTLSOne() throws {
        let (server, address) = try startTLSServer { $0.plaintextListen = try? SocketAddress(parsing: "127.0.0.1:0") }
        defer { stop(server) }
        let plaintext = try XCTUnwrap(server.plaintextAddress)
        XCTAssertNotEqual(plaintext.port, address.port)
        XCTAssertEqual(try TestClient(plaintext).call(health, TestMethods.request("")).code, .ok)
        XCTAssertEqual(try TestClient(address, tls: TestTLS.Client()).call(health, TestMethods.request("")).code, .ok)
    }

    func testReloadUnderLoadLosesNoCallsAndABadPairKeepsTheOld() throws {
        let directory = NSTemporaryDirectory() + "pushwire-reload-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func install(_ name: String) throws {
            for suffix in ["pem", "key"] {
                let target = "\(directory)/live.\(suffix)"
                try? FileManager.default.removeItem(atPath: target)
                try FileManager.default.copyItem(atPath: TestTLS.path("\(name).\(suffix)"), toPath: target)
            }
        }
        try install("server")
        let context = try TLSServerContext(certificateFile: "\(directory)/live.pem", keyFile: "\(directory)/live.key")
        let (server, address) = try startTLSServer(context)
        defer { stop(server) }

        // Four clients call in a loop on connections made before the reload, and a fifth
        // reconnects for every call: new handshakes before, during and after it. Threads of their
        // own: the global queue would run only as many blocks as there are cores.
        let stop = Atomic<Bool>(false)
        let failures = Mutex<[String]>([])
        let answered = Atomic<Int>(0)
        let answeredBy = Mutex<[Int]>(Array(repeating: 0, count: 5))
        let done = DispatchSemaphore(value: 0)
        let clients = try (0..<4).map { _ in try TestClient(address, tls: TestTLS.Client()) }
        for index in 0..<5 {
            let client = index < 4 ? clients[index] : nil
            let thread = Thread {
                defer { done.signal() }
                do {
                    while !stop.load(ordering: .relaxed) {
                        // Either pair will do for the reconnecting one.
                        let current = try client ?? TestClient(address, tls: TestTLS.Client(verify: false))
                        let answer = try current.call(Methods.Health.check.path, TestMethods.request(""))
                        guard answer.code == .ok else { throw TestClient.Failure(description: "\(answer.code) \(answer.message)") }
                        answered.add(1, ordering: .relaxed)
                        answeredBy.withLock { $0[index] += 1 }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            thread.start()
        }
        // Every client is answered a few times before the reload and again after it (the
        // reconnecting one on handshakes made after it); a failure ends the wait too.
        func everyClientAnswered(since marks: [Int]) -> Bool {
            failures.withLock { !$0.isEmpty } || answeredBy.withLock { zip($0, marks).allSatisfy { $0 >= $1 + 3 } }
        }
        XCTAssertTrue(waitUntil(timeout: 30) { everyClientAnswered(since: Array(repeating: 0, count: 5)) }, "before the reload")
        try install("wrong-host")
        try context.reload()
        let atReload = answeredBy.withLock { $0 }
        XCTAssertTrue(waitUntil(timeout: 30) { everyClientAnswered(since: atReload) }, "after the reload")
        stop.store(true, ordering: .relaxed)
        for _ in 0..<5 { XCTAssertEqual(done.wait(timeout: .now() + 20), .success) }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertGreaterThan(answered.load(ordering: .relaxed), 20)

        // New handshakes get the new pair: it verifies for its own name, not for 127.0.0.1.
        XCTAssertEqual(try TestClient(address, tls: TestTLS.Client(serverName: "wrong-host.invalid")).call(health).code, .ok)
        XCTAssertThrowsError(try TestClient(address, tls: TestTLS.Client()))
        // A pair that does not load is refused and the one serving stays.
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: "\(directory)/live.pem"))
        XCTAssertThrowsError(try context.reload()) { error in
            XCTAssertTrue("\(error)".contains("live.pem"), "\(error)")
        }
        XCTAssertEqual(try TestClient(address, tls: TestTLS.Client(serverName: "wrong-host.invalid")).call(health).code, .ok)
    }

    func testClientCertificateGuardsItsServicesOnly() throws {
        let context = try TestTLS.serverContext(clientCA: true)
        let (server, address) = try startTLSServer(context) {
            $0.clientCertificateServices = ["pushwire.test.Test"]
            $0.plaintextListen = try? SocketAddress(parsing: "127.0.0.1:0")
        }
        defer { stop(server) }
        let withCertificate = try TestClient(address, tls: TestTLS.Client(clientCertificate: true))
        XCTAssertEqual(try withCertificate.call(TestMethods.sleep.path, TestMethods.request("0")).code, .ok)
        let without = try TestClient(address, tls: TestTLS.Client())
        let refused = try without.call(TestMethods.sleep.path, TestMethods.request("0"))
        XCTAssertEqual(refused.code, .permissionDenied)
        XCTAssertEqual(refused.message, "pushwire.test.Test needs a TLS client certificate signed by the server's client CA")
        XCTAssertEqual(try without.call(health, TestMethods.request("")).code, .ok, "other services need none")
        let plaintext = try TestClient(try XCTUnwrap(server.plaintextAddress))
        XCTAssertEqual(try plaintext.call(TestMethods.sleep.path, TestMethods.request("0")).code, .permissionDenied)
    }

    // MARK: The RPC limits over TLS

    func testFrameAboveTheLimitGetsGoAwayOverTLS() throws {
        let (server, address) = try startTLSServer { $0.maxFrameSize = 1024 }
        defer { stop(server) }
        let client = try TestClient(address, tls: TestTLS.Client())
        try client.sendRaw([0, 0, 0x07, 0xD0] + [UInt8](repeating: 0x41, count: 100))
        let goAway = try client.readUntilClosed().compactMap { frame -> GoAway? in
            if case .goAway(let goAway)? = frame.kind { return goAway }
            return nil
        }.first
        XCTAssertEqual(goAway?.status?.code, StatusCode.resourceExhausted.rawValue)
        XCTAssertEqual(goAway?.status?.message, "frame of 2000 bytes exceeds the limit of 1024 bytes")
    }

    func testMaxConcurrentCallsOverTLS() throws {
        let (server, address) = try startTLSServer { $0.maxConcurrentCallsPerConnection = 4 }
        defer { stop(server) }
        let client = try TestClient(address, tls: TestTLS.Client())
        for _ in 0..<4 { try client.start(TestMethods.sleep.path, TestMethods.request("200")) }
        let extra = try client.start(TestMethods.sleep.path, TestMethods.request("0"))
        let first = try client.readResponse()
        XCTAssertEqual(first.callID, extra)
        XCTAssertEqual(first.code, .resourceExhausted)
        for _ in 0..<4 { XCTAssertEqual(try client.readResponse().code, .ok) }
    }

    func testAClientThatNeverReadsIsHeldToItsBudgetOverTLS() throws {
        let cap = 128 * 1024
        let (server, address) = try startTLSServer { $0.maxOutputBufferBytes = cap }
        defer { stop(server) }
        let lazy = try TestClient(address, receiveBuffer: 16 * 1024, tls: TestTLS.Client())
        // 200 requests for 64 KiB each (12.8 MB of answers) in one write, then never a read.
        var requests: [UInt8] = []
        for callID in 1...200 {
            Frame.request(callID: UInt32(callID), method: TestMethods.big.path, message: TestMethods.request("64"))
                .encode(appendingTo: &requests, lengthPrefixed: true)
        }
        try lazy.sendRaw(requests)
        usleep(1_000_000)
        let statistics = server.backpressureStatistics
        XCTAssertGreaterThan(statistics.pauses, 0)
        XCTAssertLessThanOrEqual(statistics.peakBufferedBytes, cap + 66 * 1024)
        // The server-wide total is the connection's footprint: what it holds (as above), the TLS
        // session's own charge and record buffers, and its input and output buffers' allocated
        // capacity (64 KiB of read buffer, and room the output array grew beyond its count: 20 KiB
        // seen, 308,824 and 312,784 bytes in all, after the kernel's send buffer was capped).
        XCTAssertLessThanOrEqual(server.bufferedBytesStatistics.peak,
                                 cap + 66 * 1024 + TLSSession.sessionBytes + 2 * TLSSession.recordBufferBytes
                                     + 64 * 1024 + 20 * 1024)
        XCTAssertEqual(try TestClient(address, tls: TestTLS.Client()).call(health, TestMethods.request("")).code, .ok)
    }
}

/// Each client is used by one thread at a time (made on one, used on another).
extension TestClient: @unchecked Sendable {}
