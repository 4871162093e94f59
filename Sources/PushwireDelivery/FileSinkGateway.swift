#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushwireJSON
import Synchronization

/// The gateway of apps without push credentials (and of `pushwired --sink FILE`): appends one JSON
/// line per notification to a file, so the whole pipeline runs and can be inspected without Apple
/// or Google.
///
/// A line: `{"delivery_id":7,"message_code":"…","token":"…","platform":"ios","priority":10,
/// "expiration":0,"collapse_id":"","payload":{…}}` — `platform` names the device's platform
/// (`PushPlatform.name`), `payload` is what its service would get, embedded as JSON: the APNs
/// payload, or for Android the FCM `message` object without its token.
/// A batch is written with one `write(2)` on an `O_APPEND` descriptor, so lines of concurrent
/// batches never interleave and a `kill -9` cannot lose a line that `deliver` reported as sent
/// (the page cache outlives the process; `fsyncEachBatch` also survives a power loss).
public final class FileSinkGateway: NotificationGateway {
    /// Why the sink cannot be opened.
    public struct OpenError: Error, Sendable, CustomStringConvertible {
        /// The file's path.
        public var path: String
        /// `errno` of `open(2)`.
        public var code: Int32
        public var description: String { "cannot open sink file \(path): \(String(cString: strerror(code)))" }
    }

    /// The file's path.
    public let path: String
    private let fsyncEachBatch: Bool
    /// The descriptor; the lock makes one batch's write and the failure bookkeeping atomic.
    private let descriptor: Mutex<Int32>

    /// Opens (creating) `path` for appending.
    /// - Throws: `OpenError` when the file cannot be opened.
    public init(path: String, fsyncEachBatch: Bool = false) throws(OpenError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if fd < 0 { throw OpenError(path: path, code: errno) }
        self.path = path
        self.fsyncEachBatch = fsyncEachBatch
        self.descriptor = Mutex(fd)
    }

    deinit { descriptor.withLock { _ = close($0) } }

    /// Appends the batch; every notification is `.sent` once its line is written, or `.retry` when
    /// the write failed (a full disk).
    public func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        let text = FileSinkGateway.lines(batch)
        let failure: Int32? = descriptor.withLock { fd in
            var offset = 0
            while offset < text.count {
                let written = text.withUnsafeBytes { buffer -> Int in
                    guard let base = buffer.baseAddress else { return 0 }
                    return write(fd, base + offset, buffer.count - offset)
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            if fsyncEachBatch, fsync(fd) != 0 { return errno }
            return nil
        }
        if let failure {
            let reason = "SinkWriteFailed: \(String(cString: strerror(failure)))"
            return Array(repeating: .retry(reason: reason, after: nil), count: batch.count)
        }
        return Array(repeating: .sent(apnsID: ""), count: batch.count)
    }

    /// The JSON lines of a batch, one per notification (keys in a fixed order).
    ///
    /// Consecutive notifications of one message mostly share everything but the delivery id and
    /// the token (one payload per language, the same code, priority and expiry), so the shared
    /// parts are escaped once and copied after that: formatting every field of every line was
    /// about a sixth of the CPU a small message's delivery costs.
    static func lines(_ batch: [OutgoingNotification]) -> [UInt8] {
        var text: [UInt8] = []
        text.reserveCapacity(batch.reduce(0) { $0 + $1.payload.count + 160 })
        // The index of the notification the shared parts were made for, and the parts.
        var shared: (index: Int, code: [UInt8], tail: [UInt8])?
        for index in batch.indices {
            // Fields read in place: a copy of each notification retained four buffers.
            if !(shared.map { FileSinkGateway.sharesLineParts(batch, index, $0.index) } ?? false) {
                let n = batch[index]
                var code: [UInt8] = []
                JSONText.appendString(n.messageCode, to: &code)
                var tail: [UInt8] = []
                tail.append(contentsOf: #","priority":"#.utf8)
                appendDecimal(Int64(n.priority), to: &tail)
                tail.append(contentsOf: #","expiration":"#.utf8)
                appendDecimal(n.expiration, to: &tail)
                tail.append(contentsOf: #","collapse_id":"#.utf8)
                JSONText.appendString(n.collapseID, to: &tail)
                tail.append(contentsOf: #","payload":"#.utf8)
                // The payload is rendered JSON already; an empty one is written as null.
                if n.payload.isEmpty { tail.append(contentsOf: "null".utf8) } else { tail.append(contentsOf: n.payload) }
                tail.append(contentsOf: "}\n".utf8)
                shared = (index, code, tail)
            }
            guard let parts = shared else { continue }
            text.append(contentsOf: #"{"delivery_id":"#.utf8)
            appendDecimal(batch[index].deliveryID, to: &text)
            text.append(contentsOf: #","message_code":"#.utf8)
            text.append(contentsOf: parts.code)
            text.append(contentsOf: #","token":"#.utf8)
            JSONText.appendString(batch[index].deviceToken, to: &text)
            text.append(contentsOf: #","platform":""#.utf8)
            text.append(contentsOf: PushPlatform.name(deviceType: batch[index].deviceType).utf8)
            text.append(UInt8(ascii: "\""))
            text.append(contentsOf: parts.tail)
        }
        return text
    }

    /// Whether the line of `batch[a]` differs from that of `batch[b]` only in the delivery id and
    /// the token. Payloads rendered once per language share their storage, which `==` compares first.
    private static func sharesLineParts(_ batch: [OutgoingNotification], _ a: Int, _ b: Int) -> Bool {
        batch[a].priority == batch[b].priority && batch[a].expiration == batch[b].expiration
            && batch[a].messageCode == batch[b].messageCode && batch[a].collapseID == batch[b].collapseID
            && batch[a].payload == batch[b].payload
    }

    /// Appends `value` in decimal, without a String.
    static func appendDecimal(_ value: Int64, to text: inout [UInt8]) {
        if value < 0 { text.append(0x2D) }
        appendDecimal(value.magnitude, to: &text)
    }

    /// Appends `value` in decimal, without a String.
    static func appendDecimal(_ value: UInt64, to text: inout [UInt8]) {
        var divisor: UInt64 = 1
        while value / divisor >= 10 { divisor *= 10 }
        repeat {
            text.append(UInt8(truncatingIfNeeded: value / divisor % 10) + 0x30)
            divisor /= 10
        } while divisor > 0
    }
}
