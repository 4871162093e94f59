import XCTest
import Foundation
import Synchronization
import PushwireWire
import PushwireClient

/// `pushwired backup` from a running server under write load, and `pushwired restore` into a
/// fresh directory: every registration acknowledged before the backup started is in the restored
/// server. Also what restore refuses: a directory in use, one holding a database (without
/// `--force`), a file that is not a Pushwire database.
final class BackupRestoreTests: XCTestCase {
    /// The writers' shared state.
    private final class Progress: Sendable {
        let acknowledged = Mutex<[Int]>([])
        let stop = Atomic<Bool>(false)
        let next = Atomic<Int>(0)
    }

    private static func register(_ connection: ClientConnection, application: String, index: Int) async throws {
        var request = RegisterDeviceRequest()
        request.application = application
        request.hwid = "backup-\(index)"
        request.pushToken = "a1b2c3"
        request.deviceType = .ios
        var tag = Tag()
        tag.name = "n"
        var value = TagValue()
        value.kind = .intValue(Int64(index))
        tag.value = value
        request.tags = [tag]
        _ = try await connection.devices.registerDevice(request, options: CallOptions(timeout: .seconds(10)))
    }

    func testBackupUnderWriteLoadRestoresEveryAcknowledgedWrite() async throws {
        let source = try PushwiredProcess.temporaryDirectory("pushwire-backup-src")
        let restored = try PushwiredProcess.temporaryDirectory("pushwire-backup-dst")
        let backupFile = source.deletingLastPathComponent().appendingPathComponent("\(source.lastPathComponent).backup").path
        defer { try? FileManager.default.removeItem(atPath: backupFile) }
        let server = try PushwiredProcess(dataDirectory: source, arguments: ["--admin-token", "adm", "--log-level", "warning"])
        defer { server.stop(); server.remove() }

        let connection = try await ClientConnection.connect(to: server.address, timeout: .seconds(10))
        defer { connection.close() }
        var create = CreateApplicationRequest()
        create.name = "backup test"
        let application = try await connection.admin.createApplication(create, options: .bearer("adm")).application?.code ?? ""

        // Four writers register devices until told to stop (at most 20 000 in all), each noting
        // the index of every registration acknowledged.
        let progress = Progress()
        let writers = (0..<4).map { _ in
            Task { [connection, application, progress] in
                while !progress.stop.load(ordering: .relaxed) {
                    let index = progress.next.wrappingAdd(1, ordering: .relaxed).oldValue
                    if index >= 20_000 { return }
                    try await Self.register(connection, application: application, index: index)
                    progress.acknowledged.withLock { $0.append(index) }
                }
            }
        }
        let warmup = Date().addingTimeInterval(30)
        while progress.acknowledged.withLock({ $0.count }) < 300, Date() < warmup { try await Task.sleep(for: .milliseconds(10)) }
        let before = Set(progress.acknowledged.withLock { $0 })
        XCTAssertGreaterThanOrEqual(before.count, 300)

        let backup = try runExecutable("pushwired", ["backup", "--data-dir", source.path, "--to", backupFile])
        let duringOrAfter = progress.acknowledged.withLock { $0.count }
        progress.stop.store(true, ordering: .relaxed)
        for writer in writers { try await writer.value }
        XCTAssertEqual(backup.status, 0, backup.stderr)
        XCTAssertTrue(backup.stdout.hasPrefix("backed up \(source.path) to \(backupFile): schema v"), backup.stdout)
        XCTAssertGreaterThan(duringOrAfter, before.count, "the server kept taking writes while the backup ran")

        // A second backup to the same file is refused without --force.
        let again = try runExecutable("pushwired", ["backup", "--data-dir", source.path, "--to", backupFile])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.contains("pass --force"), again.stderr)
        // The running server's directory cannot be restored into, even with --force.
        let inUse = try runExecutable("pushwired", ["restore", "--from", backupFile, "--data-dir", source.path, "--force"])
        XCTAssertEqual(inUse.status, 1)
        // The store's own lock refuses it, naming the server that holds it.
        XCTAssertTrue(inUse.stderr.contains("cannot restore into \(source.path): another process (pid \(server.process.processIdentifier)) is using this data directory"),
                      inUse.stderr)

        let restore = try runExecutable("pushwired", ["restore", "--from", backupFile, "--data-dir", restored.path])
        XCTAssertEqual(restore.status, 0, restore.stderr)
        let copy = try PushwiredProcess(dataDirectory: restored, arguments: ["--admin-token", "adm", "--log-level", "warning"])
        defer { copy.stop(); copy.remove() }
        let check = try await ClientConnection.connect(to: copy.address, timeout: .seconds(10))
        defer { check.close() }
        for index in before.sorted() {
            var request = GetTagsRequest()
            request.application = application
            request.hwid = "backup-\(index)"
            let tags = try await check.devices.getTags(request, options: CallOptions(timeout: .seconds(10)))
            XCTAssertEqual(tags.tags.first?.value?.kind, .intValue(Int64(index)), "backup-\(index)")
        }
        copy.stop()

        // The stopped copy's directory holds a database: replaced only with --force.
        let occupied = try runExecutable("pushwired", ["restore", "--from", backupFile, "--data-dir", restored.path])
        XCTAssertEqual(occupied.status, 1)
        XCTAssertTrue(occupied.stderr.contains("already holds a database; pass --force"), occupied.stderr)
        let forced = try runExecutable("pushwired", ["restore", "--from", backupFile, "--data-dir", restored.path, "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
    }

    func testRestoreRefusesWhatIsNotAPushwireDatabase() throws {
        let directory = try PushwiredProcess.temporaryDirectory("pushwire-restore-bad")
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = directory.appendingPathComponent("garbage.db")
        try Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: garbage)
        let target = directory.appendingPathComponent("data")
        let result = try runExecutable("pushwired", ["restore", "--from", garbage.path, "--data-dir", target.path])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("is not a Pushwire database"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.appendingPathComponent("pushwire.sqlite3").path))

        let missing = try runExecutable("pushwired", ["backup", "--data-dir", target.path])
        XCTAssertEqual(missing.status, 64)
        XCTAssertEqual(missing.stderr, "pushwired backup: missing --to\nsee 'pushwired backup --help'\n")
        let noDatabase = try runExecutable("pushwired", ["backup", "--data-dir", directory.appendingPathComponent("none").path, "--to", garbage.path + ".b"])
        XCTAssertEqual(noDatabase.status, 1)
        XCTAssertTrue(noDatabase.stderr.contains("no database in"), noDatabase.stderr)
    }
}
