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
        var good: TestClient?
        let elapsed = try TestTLS.stalledHandshakesDropped(at: address) {
            // Meanwhile a TLS client is served at once.
            let client = try TestClient(address, tls: TestTLS.Client())
            XCTAssertEqual(try client.call(health, TestMethods.request("")).code, .ok)
            good = client
        }
        XCTAssertGreaterThanOrEqual(elapsed, 0.4)
        XCTAssertLessThan(elapsed, 2.0, "dropped at the handshake timeout, not the 30 s preface timeout")
        let served = try XCTUnwrap(good)
        XCTAssertEqual(try served.call(health, TestMethods.request("")).code, .ok)
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
        let pair = try TestTLS.LivePair("server")
        let context = try TLSServerContext(certificateFile: pair.certificateFile, keyFile: pair.keyFile)
        let (server, address) = try startTLSServer(context)
        defer { stop(server) }

        // Four clients call in a loop on connections made before the reload, and a fifth
        // reconnects for every call: new handshakes before, during and after it.
        let clients = try (0..<4).map { _ in try TestClient(address, tls: TestTLS.Client()) }
        let load = try TestTLS.callsAround({
            try pair.install("wrong-host")
            try context.reload()
        }, threads: 5) { index in
            // Either pair will do for the reconnecting one.
            let current = try index < 4 ? clients[index] : TestClient(address, tls: TestTLS.Client(verify: false))
            let answer = try current.call(Methods.Health.check.path, TestMethods.request(""))
            guard answer.code == .ok else { throw TestClient.Failure(description: "\(answer.code) \(answer.message)") }
        }
        XCTAssertEqual(load.failures, [])
        XCTAssertGreaterThan(load.answered, 20)

        // New handshakes get the new pair: it verifies for its own name, not for 127.0.0.1.
        XCTAssertEqual(try TestClient(address, tls: TestTLS.Client(serverName: "wrong-host.invalid")).call(health).code, .ok)
        XCTAssertThrowsError(try TestClient(address, tls: TestTLS.Client()))
        // A pair that does not load is refused and the one serving stays.
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: pair.certificateFile))
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
        waitUntilServerSettles(server)
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
