import XCTest
import Foundation
import Glibc

/// pushwired as a systemd service: readiness on `$NOTIFY_SOCKET` once it listens (`Type=notify`),
/// and SIGHUP reopening the sink file that logrotate moved away, the server serving on.
final class ServiceOperationTests: XCTestCase {
    /// A bound Unix datagram socket standing in for systemd's notify socket.
    private func notifySocket(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(fd, 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0, String(cString: strerror(errno)))
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    private func lines(_ url: URL) -> Int {
        ((try? String(contentsOf: url, encoding: .utf8)) ?? "").split(separator: "\n").count
    }

    private func waitFor(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return false
    }

    func testReadinessAndSighupReopensTheSink() throws {
        let directory = try PushwiredProcess.temporaryDirectory("pushwired-service")
        let socketPath = directory.deletingLastPathComponent().appendingPathComponent("\(directory.lastPathComponent).notify").path
        defer { unlink(socketPath) }
        let notify = try notifySocket(socketPath)
        defer { close(notify) }
        let server = try PushwiredProcess(dataDirectory: directory, arguments: ["--admin-token", "adm", "--log-level", "notice"],
                                          environment: ["NOTIFY_SOCKET": socketPath])
        defer { server.stop(); server.remove() }

        var buffer = [UInt8](repeating: 0, count: 512)
        let received = buffer.withUnsafeMutableBytes { recv(notify, $0.baseAddress, $0.count, 0) }
        XCTAssertGreaterThan(received, 0, "no readiness datagram")
        let state = String(decoding: buffer.prefix(max(0, received)), as: UTF8.self)
        XCTAssertTrue(state.hasPrefix("READY=1\n"), state)
        XCTAssertTrue(state.contains("STATUS=listening on \(server.address)"), state)

        let environment = ["PUSHWIRE_SERVER": server.address, "PUSHWIRE_ADMIN_TOKEN": "adm"]
        let created = try runExecutable("pushwire", ["app", "create", "--name", "sighup"], environment: environment)
        XCTAssertEqual(created.status, 0, created.stderr)
        let code = try XCTUnwrap(created.stdout.split(separator: " ").dropFirst(2).first.map(String.init))
        let token = try XCTUnwrap(created.stdout.split(separator: "\n").first(where: { $0.hasPrefix("access token: ") })?.dropFirst("access token: ".count))
        XCTAssertEqual(try runExecutable("pushwire", ["device", "register", "--app", code, "--hwid", "h1", "--push-token", "ab12"], environment: environment).status, 0)
        let send = ["message", "send", "--content", "hi", "--device", "h1", "--token", String(token)]

        let sink = directory.appendingPathComponent("sink.jsonl")
        XCTAssertEqual(try runExecutable("pushwire", send, environment: environment).status, 0)
        XCTAssertTrue(waitFor { lines(sink) == 1 }, "the first notification never reached the sink")

        let moved = directory.appendingPathComponent("sink.jsonl.1")
        try FileManager.default.moveItem(at: sink, to: moved)
        server.signal(SIGHUP)
        XCTAssertTrue(server.waitForLog("SIGHUP: reopened the sink files"), server.log())
        XCTAssertTrue(server.process.isRunning, "SIGHUP ended pushwired")

        XCTAssertEqual(try runExecutable("pushwire", send, environment: environment).status, 0)
        XCTAssertTrue(waitFor { lines(sink) == 1 }, "the second notification did not go to the new sink file")
        XCTAssertEqual(lines(moved), 1)
        XCTAssertEqual(server.stop(), 0)
    }

    /// `--sink-max-bytes` and `--sink-keep` through the binary: past the size the sink becomes
    /// `sink.jsonl.1` (the older one `.2`), no more than `--sink-keep` rotated files stay, and the
    /// newest delivery is in the file at the sink's own path.
    func testTheSinkRotatesBySize() throws {
        let directory = try PushwiredProcess.temporaryDirectory("pushwired-rotation")
        let server = try PushwiredProcess(dataDirectory: directory, arguments: ["--admin-token", "adm", "--log-level", "warning",
                                                                                "--sink-max-bytes", "4096", "--sink-keep", "2"])
        defer { server.stop(); server.remove() }
        let environment = ["PUSHWIRE_SERVER": server.address, "PUSHWIRE_ADMIN_TOKEN": "adm"]
        let created = try runExecutable("pushwire", ["app", "create", "--name", "rotation"], environment: environment)
        XCTAssertEqual(created.status, 0, created.stderr)
        let code = try XCTUnwrap(created.stdout.split(separator: " ").dropFirst(2).first.map(String.init))
        let token = try XCTUnwrap(created.stdout.split(separator: "\n").first(where: { $0.hasPrefix("access token: ") })?.dropFirst("access token: ".count))
        XCTAssertEqual(try runExecutable("pushwire", ["device", "register", "--app", code, "--hwid", "h1", "--push-token", "ab12"], environment: environment).status, 0)

        // 20 lines of more than 500 bytes each: over 10 KB, so the 4 KB sink rotates at least twice.
        let content = String(repeating: "rotate ", count: 72)
        var last = ""
        for _ in 0..<20 {
            let sent = try runExecutable("pushwire", ["message", "send", "--content", content, "--device", "h1", "--token", String(token)],
                                         environment: environment)
            XCTAssertEqual(sent.status, 0, sent.stderr)
            last = try XCTUnwrap(sent.stdout.split(separator: "\n").first?.split(separator: " ").last.map(String.init), sent.stdout)
        }
        let sink = directory.appendingPathComponent("sink.jsonl")
        XCTAssertTrue(waitFor { ((try? String(contentsOf: sink, encoding: .utf8)) ?? "").contains(last) }, "the last message never reached the sink")
        let manager = FileManager.default
        for rotated in ["sink.jsonl.1", "sink.jsonl.2"] {
            let size = (try? manager.attributesOfItem(atPath: directory.appendingPathComponent(rotated).path)[.size] as? Int) ?? nil
            XCTAssertGreaterThanOrEqual(size ?? 0, 4096, "\(rotated): \(String(describing: size))")
        }
        XCTAssertFalse(manager.fileExists(atPath: directory.appendingPathComponent("sink.jsonl.3").path), "more than --sink-keep 2 rotated files")
        let current = (try? manager.attributesOfItem(atPath: sink.path)[.size] as? Int) ?? nil
        XCTAssertLessThan(current ?? .max, 4096 + 2048, "the sink at its path kept growing: \(String(describing: current))")
    }
}
