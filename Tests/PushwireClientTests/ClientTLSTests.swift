import Foundation
import Glibc
@testable import PushwireClient
import PushwireWire
import XCTest

/// The Swift client, the CLI and pushwired itself over TLS, against a throw-away CA
/// (Scripts/tls/make-test-ca): calls and a pool over TLS, refusals with the reason, `pwires://`,
/// and a certificate reload on SIGHUP that keeps open connections.
final class ClientTLSTests: XCTestCase {
    /// The CA's directory, made once for the suite.
    static let material: URL = {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pushwire-client-tls-\(getpid())")
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/tls/make-test-ca")
        let process = Process()
        process.executableURL = script
        process.arguments = [directory.path]
        try? process.run()
        process.waitUntilExit()
        return directory
    }()

    static func file(_ name: String) -> String { material.appendingPathComponent(name).path }

    let adminToken = "client-tls-admin-token"

    /// pushwired with TLS on --listen from `certificate`/`key` (default: the CA's server pair).
    func startServer(certificate: String = file("server.pem"), key: String = file("server.key"),
                     extra: [String] = []) throws -> PushwiredProcess {
        let directory = try PushwiredProcess.temporaryDirectory("pushwire-client-tls")
        return try PushwiredProcess(dataDirectory: directory.appendingPathComponent("data"), arguments: [
            "--tls-cert", certificate, "--tls-key", key, "--admin-token", adminToken, "--http-listen", "off",
        ] + extra)
    }

    var trusted: ClientTLSOptions { ClientTLSOptions(caFile: Self.file("ca.pem")) }

    func testTypedCallsAndAPoolOverTLS() async throws {
        let server = try startServer()
        defer { server.stop(); server.remove() }
        let connection = try await ClientConnection.connect(to: server.address, timeout: .seconds(10), tls: trusted)
        defer { connection.close() }
        let status2125 = try await connection.health.check(HealthCheckRequest()).status
        XCTAssertEqual(status2125, .serving)
        let admin = CallOptions(metadata: [("authorization", "Bearer \(adminToken)")])
        let created = try await connection.admin.createApplication(CreateApplicationRequest(name: "over-tls"), options: admin)
        XCTAssertFalse(created.application?.code.isEmpty ?? true)
        _ = try await connection.ping()
        // Many calls at once from many tasks: records sealed by callers, opened by the reader.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<500 {
                group.addTask { _ = try await connection.health.check(HealthCheckRequest()) }
            }
            try await group.waitForAll()
        }
        // pwires:// with the system store does not know the test CA: refused, saying why.
        do {
            _ = try await ClientConnection.connect(to: "pwires://\(server.address)", timeout: .seconds(5))
            XCTFail("the test CA is not in the system store")
        } catch let error as RPCError {
            XCTAssertEqual(error.code, .unavailable)
            XCTAssertTrue(error.message.contains("certificate verification failed for 127.0.0.1"), error.message)
        }
        let pool = ClientPool(address: "pwires://\(server.address)", connections: 2, tls: trusted)
        defer { pool.close() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<200 {
                group.addTask { _ = try await pool.health.check(HealthCheckRequest()) }
            }
            try await group.waitForAll()
        }
    }

    func testAWrongNameOrAnUntrustedCAIsRefusedWithTheReason() async throws {
        let server = try startServer()
        defer { server.stop(); server.remove() }
        func refusal(_ options: ClientTLSOptions) async -> String {
            do {
                let connection = try await ClientConnection.connect(to: server.address, timeout: .seconds(5), tls: options)
                connection.close()
                return "connected"
            } catch let error as RPCError {
                XCTAssertEqual(error.code, .unavailable)
                return error.message
            } catch {
                return "\(error)"
            }
        }
        let wrongName = await refusal(ClientTLSOptions(caFile: Self.file("ca.pem"), serverName: "elsewhere.invalid"))
        XCTAssertTrue(wrongName.contains("certificate verification failed for elsewhere.invalid"), wrongName)
        XCTAssertTrue(wrongName.contains("hostname mismatch"), wrongName)
        let otherCA = await refusal(ClientTLSOptions(caFile: Self.file("other-ca.pem")))
        XCTAssertTrue(otherCA.contains("certificate verification failed for 127.0.0.1"), otherCA)
        XCTAssertTrue(otherCA.contains("self-signed") || otherCA.contains("issuer"), otherCA)
        // The name in the certificate verifies when it is the one asked for.
        let named = try await ClientConnection.connect(to: server.address, tls: ClientTLSOptions(caFile: Self.file("ca.pem"), serverName: "localhost"))
        let status5212 = try await named.health.check(HealthCheckRequest()).status
        XCTAssertEqual(status5212, .serving)
        named.close()
        // A clear-text client on the TLS port gets no Pushwire answer.
        do {
            _ = try await ClientConnection.connect(to: server.address, timeout: .seconds(5))
            XCTFail("a clear-text client was answered on the TLS port")
        } catch let error as RPCError {
            XCTAssertEqual(error.code, .unavailable)
        }
    }

    func testTheCLIOverTLS() throws {
        let server = try startServer()
        defer { server.stop(); server.remove() }
        let ok = try runExecutable("pushwire", ["--server", "pwires://\(server.address)", "--ca-file", Self.file("ca.pem"), "health"])
        XCTAssertEqual(ok.status, 0, ok.stdout + ok.stderr)
        XCTAssertTrue(ok.stdout.contains("SERVING"), ok.stdout)
        let flags = try runExecutable("pushwire", ["--server", server.address, "--tls", "--ca-file", Self.file("ca.pem"),
                                                   "--server-name", "localhost", "ping", "--count", "1"])
        XCTAssertEqual(flags.status, 0, flags.stdout + flags.stderr)
        let wrong = try runExecutable("pushwire", ["--server", server.address, "--ca-file", Self.file("ca.pem"),
                                                   "--server-name", "elsewhere.invalid", "health"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("certificate verification failed for elsewhere.invalid"), wrong.stderr)
    }

    func testTheCLIPresentsAClientCertificateForAdmin() throws {
        let server = try startServer(extra: ["--tls-client-ca", Self.file("ca.pem")])
        defer { server.stop(); server.remove() }
        let common = ["--server", "pwires://\(server.address)", "--ca-file", Self.file("ca.pem"), "--admin-token", adminToken]
        let refused = try runExecutable("pushwire", common + ["app", "list"])
        XCTAssertEqual(refused.status, 1, refused.stdout + refused.stderr)
        XCTAssertTrue(refused.stderr.contains("PERMISSION_DENIED") && refused.stderr.contains("client certificate"), refused.stderr)
        let admitted = try runExecutable("pushwire", common + ["--client-cert", Self.file("client.pem"), "--client-key", Self.file("client.key"),
                                                               "app", "list"])
        XCTAssertEqual(admitted.status, 0, admitted.stdout + admitted.stderr)
        // A key without its certificate is a usage error.
        let usage = try runExecutable("pushwire", common + ["--client-key", Self.file("client.key"), "app", "list"])
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(usage.stderr.contains("--client-key needs --client-cert"), usage.stderr)
    }

    func testAClosedConnectionFreesItsTLSContext() async throws {
        let server = try startServer()
        defer { server.stop(); server.remove() }
        // Options of this test only, so that no other connection shares the context.
        let options = ClientTLSOptions(caFile: Self.file("ca.pem"), serverName: "localhost")
        let before = ClientTLSContext.alive.load(ordering: .relaxed)
        let connection = try await ClientConnection.connect(to: server.address, timeout: .seconds(10), tls: options)
        let status = try await connection.health.check(HealthCheckRequest()).status
        XCTAssertEqual(status, .serving)
        XCTAssertEqual(ClientTLSContext.alive.load(ordering: .relaxed), before + 1)
        connection.close()
        // The reader thread closes the socket and the session; the context goes with the session,
        // while the caller still holds the connection.
        let deadline = ContinuousClock.now + .seconds(5)
        while ClientTLSContext.alive.load(ordering: .relaxed) > before, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        XCTAssertEqual(ClientTLSContext.alive.load(ordering: .relaxed), before, "the SSL_CTX outlived its last connection")
        withExtendedLifetime(connection) {}
    }

    func testSIGHUPReloadsThePairAndKeepsOpenConnections() async throws {
        let directory = try PushwiredProcess.temporaryDirectory("pushwire-reload")
        defer { try? FileManager.default.removeItem(at: directory) }
        let certificate = directory.appendingPathComponent("live.pem"), key = directory.appendingPathComponent("live.key")
        func install(_ name: String) throws {
            for (source, target) in [("\(name).pem", certificate), ("\(name).key", key)] {
                try? FileManager.default.removeItem(at: target)
                try FileManager.default.copyItem(atPath: Self.file(source), toPath: target.path)
            }
        }
        try install("server")
        let server = try startServer(certificate: certificate.path, key: key.path)
        defer { server.stop(); server.remove() }
        let open = try await ClientConnection.connect(to: server.address, tls: trusted)
        defer { open.close() }
        try install("wrong-host")
        server.signal(SIGHUP)
        XCTAssertTrue(server.waitForLog("reloaded the TLS certificate"), server.log())
        // The open connection goes on; a new one is shown the new pair.
        let status7920 = try await open.health.check(HealthCheckRequest()).status
        XCTAssertEqual(status7920, .serving)
        let renamed = try await ClientConnection.connect(to: server.address, tls: ClientTLSOptions(caFile: Self.file("ca.pem"), serverName: "wrong-host.invalid"))
        renamed.close()
        // A pair that does not load is reported; the one serving stays.
        try Data("garbage".utf8).write(to: key)
        server.signal(SIGHUP)
        XCTAssertTrue(server.waitForLog("cannot reload the TLS certificate; keeping the old one"), server.log())
        let still = try await ClientConnection.connect(to: server.address, tls: ClientTLSOptions(caFile: Self.file("ca.pem"), serverName: "wrong-host.invalid"))
        let status8623 = try await still.health.check(HealthCheckRequest()).status
        XCTAssertEqual(status8623, .serving)
        still.close()
        let status8737 = try await open.health.check(HealthCheckRequest()).status
        XCTAssertEqual(status8737, .serving)
    }

    func testPushwiredRefusesAPairThatDoesNotLoad() throws {
        let run = try runExecutable("pushwired", ["--listen", "127.0.0.1:0", "--data-dir", NSTemporaryDirectory() + "pushwire-badpair-\(getpid())",
                                                  "--tls-cert", Self.file("server.pem"), "--tls-key", Self.file("client.key")], timeout: 30)
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("cannot load the TLS certificate") && run.stderr.contains("key values mismatch"), run.stderr)
        let usage = try runExecutable("pushwired", ["--tls-cert", Self.file("server.pem")], timeout: 30)
        XCTAssertEqual(usage.status, 64)
        XCTAssertTrue(usage.stderr.contains("--tls-cert needs --tls-key"), usage.stderr)
    }
}
