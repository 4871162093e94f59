#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PushwireWire
import XCTest
@testable import PushwireRuntime

extension PushwiredProcessTests {
    /// Accept failing for lack of descriptors (every number taken, the reserve included — by
    /// another thread's files, or a limit lowered while the server runs, as here with prlimit):
    /// both doors retry with the same backoff and the server logs one warning per 10 s for both,
    /// then accepts again once descriptors are free. The HTTP door had a listener of its own that
    /// logged a warning on every tick of every loop (about 20 lines a second with two loops) and
    /// retried on each one.
    func testAcceptOutOfDescriptorsOnEitherDoorIsLoggedOncePerIntervalAndRecovers() throws {
        try withPushwiredDoors(adminToken: "t", watchdogSeconds: 60, arguments: ["--threads", "2", "--log-level", "warning"]) { rpc, http, output in
            // Serving on both doors before its descriptors are counted: what start opens is open.
            XCTAssertEqual(try HTTPTestClient(http).post("/pushwire.v1.Health/Check", json: "{}").status, 200)
            XCTAssertEqual(try TestClient.callOnceAdmitted(rpc, Methods.Health.check.path, [], timeout: 5).code, .ok)
            let numbers = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(output.pid)/fd").compactMap { Int($0) }
            let highest = try XCTUnwrap(numbers.max())
            // Below the new limit only the free numbers under `highest` are left: the first
            // connections take them, then accept fails with EMFILE for the rest.
            let holes = highest + 1 - numbers.count
            let original = try descriptorLimit(of: output.pid)
            try setDescriptorLimit(of: output.pid, to: highest + 1)
            var restored = false
            func restore() throws {
                guard !restored else { return }
                restored = true
                try setDescriptorLimit(of: output.pid, to: original)
            }
            defer { try? restore() }
            var clients: [TestClient] = []
            for index in 0..<(holes + 24) {
                // Mostly the HTTP door, some the binary one: the two share the warning.
                if let client = try? TestClient(index % 3 == 0 ? rpc : http, handshake: false) { clients.append(client) }
            }
            // Thirty ticks of each loop: one warning line a tick each before, one in all now.
            usleep(3_000_000)
            try restore()
            clients.removeAll()
            // Accepting again within the longest backoff (1.6 s), on both doors.
            guard kill(output.pid, 0) == 0 else { return XCTFail("pushwired ended:\n\(output.log)") }
            XCTAssertEqual(try HTTPTestClient(http).post("/pushwire.v1.Health/Check", json: "{}").status, 200)
            XCTAssertEqual(try TestClient.callOnceAdmitted(rpc, Methods.Health.check.path, [], timeout: 5).code, .ok)
            let failures = output.log.split(separator: "\n").filter { $0.contains("accept failed") }
            XCTAssertEqual(failures.count, 1, "one warning per 10 s for both doors:\n\(failures.joined(separator: "\n"))")
            XCTAssertTrue(failures.first?.contains("retrying with backoff") ?? false, "\(failures)")
        }
    }

    /// The soft limit on open files of process `pid`, from `/proc/<pid>/limits`.
    func descriptorLimit(of pid: pid_t) throws -> Int {
        let limits = try String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)
        let line = try XCTUnwrap(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        return try XCTUnwrap(Int(line.dropFirst("Max open files".count).split(separator: " ").first ?? ""), String(line))
    }

    /// Sets the soft limit on open files of the running process `pid` with prlimit(1) (util-linux;
    /// Swift's Glibc module does not export prlimit(2)).
    func setDescriptorLimit(of pid: pid_t, to soft: Int) throws {
        let run = try runProgram(URL(fileURLWithPath: "/usr/bin/prlimit"), ["--pid", "\(pid)", "--nofile=\(soft):"], timeout: 10)
        guard run.status == 0 else { throw TestClient.Failure(description: "prlimit --nofile=\(soft): \(run.stderr)") }
    }
}
