#if canImport(Glibc)
import Glibc
#endif
import Foundation
import PushwireSystem
import Synchronization

/// The TLS scenarios both doors are tested with (the binary door's `TLSServerTests`, the HTTP
/// door's `HTTPDoorTLSTests`): handshakes that stall, and a certificate reloaded under load.
extension TestTLS {
    /// Opens two connections to `address` that never finish a TLS handshake — one silent, one
    /// that sends half a ClientHello's record header — runs `meanwhile` (a real client, which must
    /// be served at once), then waits (≤ 5 s each) until the server has closed both.
    /// - Returns: the seconds from opening them to both being closed.
    public static func stalledHandshakesDropped(at address: SocketAddress, meanwhile: () throws -> Void) throws -> Double {
        let started = TestClient.now()
        let silent = try TestClient(address, handshake: false)
        let dripping = try TestClient(address, handshake: false)
        try dripping.sendRaw([0x16, 0x03, 0x01])
        try meanwhile()
        let unanswered = try silent.readRawUntilClosed(timeout: 5)
        guard unanswered.isEmpty else { throw Failure(description: "the silent connection was sent \(unanswered.count) bytes") }
        _ = try dripping.readRawUntilClosed(timeout: 5)
        return TestClient.now() - started
    }

    /// A certificate pair under fixed names, `live.pem` and `live.key`, in a temporary directory
    /// of its own (removed with it), which a test replaces with another pair of the test CA
    /// before telling the server to reload.
    public final class LivePair {
        public let directory: String
        public var certificateFile: String { directory + "/live.pem" }
        public var keyFile: String { directory + "/live.key" }

        /// A fresh directory holding the test CA's pair `name` (`server`, `wrong-host`, …).
        public init(_ name: String) throws {
            directory = NSTemporaryDirectory() + "pushwire-live-pair-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try install(name)
        }

        deinit {
            try? FileManager.default.removeItem(atPath: directory)
        }

        /// Replaces the live pair with the test CA's pair `name`.
        public func install(_ name: String) throws {
            for (suffix, target) in [("pem", certificateFile), ("key", keyFile)] {
                try? FileManager.default.removeItem(atPath: target)
                try FileManager.default.copyItem(atPath: TestTLS.path("\(name).\(suffix)"), toPath: target)
            }
        }
    }

    /// What `callsAround` saw: the calls answered, and the error that stopped each thread that failed.
    public struct LoadResult: Sendable {
        public var answered: Int
        public var failures: [String]
    }

    /// Runs `call(thread)` again and again on `threads` threads of their own (the global queue
    /// would run only as many blocks as there are cores): once every thread has been answered
    /// three times, runs `change` (a reload), then waits until every thread has been answered
    /// three times more (the reconnecting ones on handshakes made after it) — each wait ≤ 30 s,
    /// cut short by a failure — and then for every thread to stop (≤ 20 s). `call` throws for a
    /// failed call, which ends its thread.
    public static func callsAround(_ change: () throws -> Void, threads: Int,
                                   call: @escaping @Sendable (Int) throws -> Void) throws -> LoadResult {
        let stop = Atomic<Bool>(false)
        let failures = Mutex<[String]>([])
        let answeredBy = Mutex<[Int]>(Array(repeating: 0, count: threads))
        let done = DispatchSemaphore(value: 0)
        defer { stop.store(true, ordering: .relaxed) }
        for index in 0..<threads {
            let thread = Thread {
                defer { done.signal() }
                do {
                    while !stop.load(ordering: .relaxed) {
                        try call(index)
                        answeredBy.withLock { $0[index] += 1 }
                    }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            thread.start()
        }
        func everyThreadAnswered(since marks: [Int]) -> Bool {
            failures.withLock { !$0.isEmpty } || answeredBy.withLock { zip($0, marks).allSatisfy { $0 >= $1 + 3 } }
        }
        guard waitUntil(timeout: 30, { everyThreadAnswered(since: Array(repeating: 0, count: threads)) }) else {
            throw Failure(description: "not every thread was answered three times before the change: \(answeredBy.withLock { $0 })")
        }
        try change()
        let atChange = answeredBy.withLock { $0 }
        guard waitUntil(timeout: 30, { everyThreadAnswered(since: atChange) }) else {
            throw Failure(description: "not every thread was answered three times after the change: \(answeredBy.withLock { $0 })")
        }
        stop.store(true, ordering: .relaxed)
        for _ in 0..<threads where done.wait(timeout: .now() + 20) == .timedOut {
            throw Failure(description: "a calling thread did not stop within 20 s")
        }
        return LoadResult(answered: answeredBy.withLock { $0.reduce(0, +) }, failures: failures.withLock { $0 })
    }
}
