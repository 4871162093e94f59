#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PushwireTestSupport
import PushwireWire
import Synchronization
import XCTest
@testable import PushwireRuntime

/// Test methods, reusing the Health messages so no test proto is needed: the request's `service`
/// string carries the argument.
enum TestMethods {
    /// Sleeps `service` milliseconds off the loop (async), then answers SERVING. The argument may
    /// carry a tag after the number ("600 late"): `finishedSleeps` records it when the handler returns.
    static let sleep = MethodDescriptor<HealthCheckRequest, HealthCheckResponse>(service: "pushwire.test.Test", method: "Sleep")
    /// Sleeps `service` milliseconds on a blocking thread, then answers SERVING.
    static let blockingSleep = MethodDescriptor<HealthCheckRequest, HealthCheckResponse>(service: "pushwire.test.Test", method: "BlockingSleep")
    /// Fails with NOT_FOUND and `service` in the message.
    static let fail = MethodDescriptor<HealthCheckRequest, HealthCheckResponse>(service: "pushwire.test.Test", method: "Fail")
    /// Answers `service` KiB of bytes (in a `Request` message, whose `message` field is bytes):
    /// big responses that cost little to make.
    static let big = MethodDescriptor<HealthCheckRequest, Request>(service: "pushwire.test.Test", method: "Big")
    /// `big` on a blocking thread: a store read with a large answer (GetTags of a device with
    /// many tags).
    static let blockingBig = MethodDescriptor<HealthCheckRequest, Request>(service: "pushwire.test.Test", method: "BlockingBig")
    /// `big` in a task (`registerAsync`): an async store read with a large answer (GetTags).
    static let asyncBig = MethodDescriptor<HealthCheckRequest, Request>(service: "pushwire.test.Test", method: "AsyncBig")
    /// `big` from a raw fast path that answers later from another thread (`.later`), as
    /// RegisterDevice's does; its registered handler (taken when the fast path is declined) is
    /// `asyncBig`'s.
    static let rawLaterBig = MethodDescriptor<HealthCheckRequest, Request>(service: "pushwire.test.Test", method: "RawLaterBig")
    /// Sleeps `service` milliseconds on a blocking thread, counting each start in `blockingStarts`.
    static let countedSleep = MethodDescriptor<HealthCheckRequest, HealthCheckResponse>(service: "pushwire.test.Test", method: "CountedSleep")
    /// A request whose checking costs CPU: started on the loop like CreateMessage (a callback
    /// answered later), it spins for `service` milliseconds before answering; the request may
    /// carry padding in its `service` after the number ("250 xxxx…").
    static let heavy = MethodDescriptor<HealthCheckRequest, HealthCheckResponse>(service: "pushwire.test.Test", method: "Heavy")
    /// Times `countedSleep` started its work, across servers.
    static let blockingStarts = Atomic<Int>(0)
    /// The arguments of the `sleep` and `blockingSleep` calls whose handlers have returned (their
    /// result handed to the server), across servers: a test that checks a late result is dropped
    /// waits for its own tagged argument here instead of sleeping past the handler.
    static let finishedSleeps = Mutex<[String]>([])
    /// Times `heavy` started spinning, across servers: the heavy load has reached a handler.
    static let heavyStarts = Atomic<Int>(0)

    /// Whether the `sleep` or `blockingSleep` call with this argument has returned.
    static func sleepFinished(_ argument: String) -> Bool { finishedSleeps.withLock { $0.contains(argument) } }

    /// The milliseconds of a `sleep`/`blockingSleep` argument: the number before an optional tag.
    static func milliseconds(_ argument: String) -> Int { Int(argument.prefix { $0 != " " }) ?? 0 }

    static func request(_ argument: String) -> [UInt8] {
        var request = HealthCheckRequest()
        request.service = argument
        return request.encode()
    }
}

/// Starts an in-process server on 127.0.0.1:0 with the test methods.
func startTestServer(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws -> (Server, SocketAddress) {
    var configuration = ServerConfiguration(listen: try SocketAddress(parsing: "127.0.0.1:0"), threads: 2)
    configure(&configuration)
    let server = Server(configuration: configuration, logger: Logger(label: "test", level: .warning))
    server.registerAsync(TestMethods.sleep) { _, request in
        try? await Task.sleep(for: .milliseconds(TestMethods.milliseconds(request.service)))
        TestMethods.finishedSleeps.withLock { $0.append(request.service) }
        var response = HealthCheckResponse()
        response.status = .serving
        return response
    }
    server.registerBlocking(TestMethods.blockingSleep) { _, request in
        usleep(UInt32(TestMethods.milliseconds(request.service) * 1000))
        TestMethods.finishedSleeps.withLock { $0.append(request.service) }
        var response = HealthCheckResponse()
        response.status = .serving
        return response
    }
    server.register(TestMethods.fail) { _, request throws(RPCError) in
        throw RPCError(.notFound, "no such thing: \(request.service)")
    }
    server.register(TestMethods.big) { _, request in kibibytes(of: 0x78, askedFor: request) }
    server.registerBlocking(TestMethods.blockingBig) { _, request in kibibytes(of: 0x79, askedFor: request) }
    server.registerAsync(TestMethods.asyncBig) { _, request in kibibytes(of: 0x7A, askedFor: request) }
    server.registerAsync(TestMethods.rawLaterBig) { _, request in kibibytes(of: 0x7A, askedFor: request) }
    server.registerRawFastPath(TestMethods.rawLaterBig) { message in
        guard let request = try? HealthCheckRequest(decoding: message) else { return .decline }
        let kibibytes = Int(request.service) ?? 1
        return .later { complete in
            DispatchQueue.global().async {
                complete {
                    var response = Request()
                    response.message = [UInt8](repeating: 0x7B, count: kibibytes * 1024)
                    return .success(response.encode())
                }
            }
        }
    }
    server.registerBlocking(TestMethods.countedSleep) { _, request in
        TestMethods.blockingStarts.add(1, ordering: .relaxed)
        usleep(UInt32((Int(request.service) ?? 0) * 1000))
        var response = HealthCheckResponse()
        response.status = .serving
        return response
    }
    server.registerCallback(TestMethods.heavy) { _, request, complete in
        let milliseconds = Int(request.service.prefix { $0 != " " }) ?? 0
        let end = TestClient.now() + Double(milliseconds) / 1000
        TestMethods.heavyStarts.add(1, ordering: .relaxed)
        var spin = 0
        while TestClient.now() < end { spin &+= 1 }
        var response = HealthCheckResponse()
        response.status = spin >= 0 ? .serving : .unspecified
        complete(.success(response))
    }
    let address = try server.start()
    return (server, address)
}

/// Stops a test server and waits for it.
func stop(_ server: Server) {
    server.shutdownNow()
    server.waitUntilStopped()
}

/// The answer of the test methods that answer big: `request.service` KiB (1 when it is no number)
/// of `byte`, which tells the methods' answers apart on the wire.
func kibibytes(of byte: UInt8, askedFor request: HealthCheckRequest) -> Request {
    var response = Request()
    response.message = [UInt8](repeating: byte, count: (Int(request.service) ?? 1) * 1024)
    return response
}

/// Waits until `server` has done all it will do for its clients as they are (a client that never
/// reads): its byte accounting, budgets and pauses have not moved for half a second. Fails the
/// test if they still move after 20 s.
func waitUntilServerSettles(_ server: Server, file: StaticString = #filePath, line: UInt = #line) {
    let settled = waitUntilSettled(quietFor: 0.5) { () -> [Int] in
        let buffered = server.bufferedBytesStatistics, budget = server.budgetStatistics
        let backpressure = server.backpressureStatistics
        return [buffered.current, buffered.peak, budget.peakHeldBytes, budget.blockingCallsSkipped,
                backpressure.pauses, backpressure.peakBufferedBytes]
    }
    XCTAssertTrue(settled, "the server was still working after 20 s", file: file, line: line)
}
