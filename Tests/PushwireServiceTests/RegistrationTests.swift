import Foundation
import PushwireWire
import XCTest
@testable import PushwireService

/// A stand-in for the server: records handlers by path and calls them with encoded bytes, as the
/// runtime does.
final class RecordingRegistrar: MethodRegistrar, @unchecked Sendable {
    // @unchecked: filled before use on one thread, then only read.
    typealias Erased = @Sendable ([(key: String, value: String)], [UInt8]) async throws -> [UInt8]
    var handlers: [String: (kind: String, call: Erased)] = [:]

    private func erase<Request: WireMessage, Response: WireMessage>(_ handler: @escaping @Sendable ([(key: String, value: String)], Request) async throws(RPCError) -> Response) -> Erased {
        { metadata, bytes in try await handler(metadata, try Request(decoding: bytes)).encode() }
    }

    func addOnLoop<Request, Response>(_ method: MethodDescriptor<Request, Response>,
                                      handler: @escaping @Sendable ([(key: String, value: String)], Request) throws(RPCError) -> Response) {
        handlers[method.path] = ("loop", erase { metadata, request throws(RPCError) in try handler(metadata, request) })
    }

    func addAsync<Request, Response>(_ method: MethodDescriptor<Request, Response>,
                                     handler: @escaping @Sendable ([(key: String, value: String)], Request) async throws(RPCError) -> Response) {
        handlers[method.path] = ("async", erase(handler))
    }

    func addBlocking<Request, Response>(_ method: MethodDescriptor<Request, Response>,
                                        handler: @escaping @Sendable ([(key: String, value: String)], Request) throws(RPCError) -> Response) {
        handlers[method.path] = ("blocking", erase { metadata, request throws(RPCError) in try handler(metadata, request) })
    }

    func addOnLoopWithFallback<Request, Response>(
        _ method: MethodDescriptor<Request, Response>,
        fast: @escaping @Sendable ([(key: String, value: String)], Request) throws(RPCError) -> Response?,
        slow: @escaping @Sendable ([(key: String, value: String)], Request) async throws(RPCError) -> Response
    ) {
        handlers[method.path] = ("loop, else async", erase { metadata, request async throws(RPCError) in
            if let response = try fast(metadata, request) { return response }
            return try await slow(metadata, request)
        })
    }

    func call<Request: WireMessage, Response: WireMessage>(_ method: MethodDescriptor<Request, Response>, _ request: Request,
                                 metadata: [(key: String, value: String)] = []) async throws -> Response {
        guard let handler = handlers[method.path] else { throw RPCError(.unimplemented, method.path) }
        return try Response(decoding: try await handler.call(metadata, request.encode()))
    }
}

final class RegistrationTests: XCTestCase {
    func testEveryMethodIsRegisteredAndCallable() async throws {
        let dir = NSTemporaryDirectory() + "pushwire-registration-\(getpid())-\(UUID().uuidString.prefix(8))"
        let services = try await makePushwireServices(dataDirectory: dir, adminToken: "root")
        let server = RecordingRegistrar()
        services.register(on: server)
        let expected: [String] = [
            Methods.Admin.createApplication.path, Methods.Admin.updateApplication.path, Methods.Admin.listApplications.path,
            Methods.Devices.registerDevice.path, Methods.Devices.unregisterDevice.path, Methods.Devices.setTags.path,
            Methods.Devices.getTags.path, Methods.Devices.syncCategories.path, Methods.Devices.setBadge.path,
            Methods.Categories.upsertCategory.path,
            Methods.Categories.deleteCategory.path, Methods.Categories.listCategories.path,
            // Issue 6: the messages service.
            Methods.Messages.createMessage.path, Methods.Messages.deleteMessage.path,
            Methods.Messages.getMessageDetails.path, Methods.Devices.trackAction.path,
            // Issue 20: the console's reads.
            Methods.Messages.listMessages.path, Methods.Messages.countTargets.path,
            Methods.Messages.previewNotification.path, Methods.Messages.getDevice.path,
        ]
        XCTAssertEqual(Set(server.handlers.keys), Set(expected))
        // Answered on the loop from the cache; a store read (a miss) goes to a task.
        XCTAssertEqual(server.handlers[Methods.Devices.syncCategories.path]?.kind, "loop, else async")
        XCTAssertEqual(server.handlers[Methods.Categories.listCategories.path]?.kind, "loop, else async")
        XCTAssertEqual(server.handlers[Methods.Devices.getTags.path]?.kind, "async")
        XCTAssertEqual(server.handlers[Methods.Messages.getMessageDetails.path]?.kind, "async")
        XCTAssertFalse(server.handlers.values.contains { $0.kind == "blocking" }, "no store read blocks a thread")

        var create = CreateApplicationRequest()
        create.name = "wired"
        let created = try await server.call(Methods.Admin.createApplication, create, metadata: [("authorization", "Bearer root")])
        let code = try XCTUnwrap(created.application?.code)
        let registered = try await server.call(Methods.Devices.registerDevice, registration(code, "d1"))
        XCTAssertEqual(registered.iosCategories.map(\.name), ["YesNo"])
        let list = try await server.call(Methods.Categories.listCategories, ListCategoriesRequest(),
                                         metadata: [("authorization", "Bearer \(created.accessToken)")])
        XCTAssertEqual(list.categoriesVersion, 1)
        do {
            _ = try await server.call(Methods.Categories.listCategories, ListCategoriesRequest())
            XCTFail("no token")
        } catch let error as RPCError {
            XCTAssertEqual(error.code, .unauthenticated)
        }
        services.close()

        // A second open of the same directory sees the application.
        let reopened = try await makePushwireServices(dataDirectory: dir, adminToken: "root")
        await asyncAssertEqual(try reopened.admin.listApplications(ListApplicationsRequest(), caller: Caller(bearerToken: "root")).applications.map(\.code), [code])
        reopened.close()
    }

    func testStartupErrorsAreClear() async throws {
        let dir = NSTemporaryDirectory() + "pushwire-registration-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: dir + "/pushwire.sqlite3"))
        do {
            _ = try await makePushwireServices(dataDirectory: dir, adminToken: "root")
            XCTFail("a corrupt database must not open")
        } catch {
            XCTAssertTrue("\(error)".contains("corrupt"), "\(error)")
        }
    }

    /// A `--sink` that cannot be opened is reported as the sink, not as the data directory, both by
    /// the services and in pushwired's startup log.
    func testBadSinkIsReportedAsTheSink() async throws {
        let dir = NSTemporaryDirectory() + "pushwire-sink-\(getpid())-\(UUID().uuidString.prefix(8))"
        let sink = dir + "/no/such/folder/sink.jsonl"
        do {
            _ = try await makePushwireServices(dataDirectory: dir, adminToken: "root", sinkPath: sink)
            XCTFail("a sink that cannot be opened must fail the start")
        } catch {
            XCTAssertEqual("\(error)", "cannot open sink file \(sink): No such file or directory")
        }
        // The store was closed again: the directory opens at once.
        try await makePushwireServices(dataDirectory: dir, adminToken: "root").close()

        guard let path = CrashRecoveryTests.pushwiredPath() else { throw XCTSkip("pushwired is not built") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--listen", "127.0.0.1:0", "--data-dir", dir, "--admin-token", "root", "--sink", sink]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 1)
        XCTAssertTrue(text.contains("cannot open the sink file"), text)
        XCTAssertTrue(text.contains("cannot open sink file \(sink)"), text)
        XCTAssertFalse(text.contains("data directory"), text)
    }
}
