import XCTest
import Foundation

/// `Scripts/install --root DIR`: the binaries, the systemd unit, the sample config and the
/// logrotate file land under DIR; the installed pushwired starts from the installed config; an
/// edited config survives a second install.
final class InstallTests: XCTestCase {
    /// `Scripts/install` with `arguments`, in the test's own environment (it runs `install(1)`, `id`).
    private func install(_ arguments: [String]) throws -> ExecutableRun {
        try runProgram(repositoryRoot().appendingPathComponent("Scripts/install"), arguments, environment: ProcessInfo.processInfo.environment)
    }

    func testInstallIntoATemporaryRoot() throws {
        let binaries = try pushwiredExecutable().deletingLastPathComponent()
        let root = try PushwiredProcess.temporaryDirectory("pushwire-install-root")
        defer { try? FileManager.default.removeItem(at: root) }

        let first = try install(["--root", root.path, "--from", binaries.path])
        XCTAssertEqual(first.status, 0, first.stderr)
        let manager = FileManager.default
        for binary in ["pushwired", "pushwire", "pushwire-bench"] {
            XCTAssertTrue(manager.isExecutableFile(atPath: root.appendingPathComponent("usr/local/bin/\(binary)").path), binary)
        }
        let unit = try String(contentsOf: root.appendingPathComponent("etc/systemd/system/pushwired.service"), encoding: .utf8)
        for line in ["Type=notify", "ExecStart=/usr/local/bin/pushwired --config /etc/pushwire/pushwired.conf", "Restart=on-failure",
                     "User=pushwire", "StateDirectory=pushwire", "ProtectSystem=strict", "NoNewPrivileges=yes", "ExecReload=/bin/kill -HUP $MAINPID"] {
            XCTAssertTrue(unit.split(separator: "\n").contains(Substring(line)), line)
        }
        XCTAssertTrue(manager.fileExists(atPath: root.appendingPathComponent("etc/logrotate.d/pushwired").path))
        XCTAssertTrue(manager.fileExists(atPath: root.appendingPathComponent("usr/local/share/doc/pushwire/OPERATIONS.md").path))

        // systemd accepts the unit (pointed at the binary under the root), where systemd-analyze exists.
        if manager.isExecutableFile(atPath: "/usr/bin/systemd-analyze") {
            let checked = root.appendingPathComponent("pushwired.service")
            try unit.replacingOccurrences(of: "/usr/local/bin/pushwired", with: root.appendingPathComponent("usr/local/bin/pushwired").path)
                .write(to: checked, atomically: true, encoding: .utf8)
            let verify = Process()
            verify.executableURL = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
            verify.arguments = ["verify", checked.path]
            let err = Pipe()
            verify.standardError = err
            verify.standardOutput = FileHandle.nullDevice
            try verify.run()
            let complaints = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            verify.waitUntilExit()
            XCTAssertEqual(verify.terminationStatus, 0, complaints)
        }

        // The installed pushwired reads the installed config (its data-dir and listen overridden,
        // since /var/lib/pushwire and port 7355 are not the test's).
        let config = root.appendingPathComponent("etc/pushwire/pushwired.conf")
        let data = root.appendingPathComponent("data")
        let started = try PushwiredProcess.launch(executable: root.appendingPathComponent("usr/local/bin/pushwired"),
                                                  arguments: ["--config", config.path, "--data-dir", data.path, "--listen", "127.0.0.1:0"],
                                                  standardError: FileHandle.nullDevice)
        started.process.terminate()
        started.process.waitUntilExit()
        XCTAssertTrue(started.address.hasPrefix("127.0.0.1:"), started.lines.joined(separator: "\n"))
        XCTAssertEqual(started.process.terminationStatus, 0)

        // An edited config is kept on reinstall; the new sample goes beside it.
        try "listen = 127.0.0.1:9999\n".write(to: config, atomically: true, encoding: .utf8)
        let second = try install(["--root", root.path, "--from", binaries.path])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(try String(contentsOf: config, encoding: .utf8), "listen = 127.0.0.1:9999\n")
        XCTAssertTrue(manager.fileExists(atPath: config.path + ".new"))

        let bad = try install(["--prefix", "relative"])
        XCTAssertEqual(bad.status, 64)
    }
}
