#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PushwireJSON
import Synchronization

/// The gateway of apps without APNs credentials (and of `pushwired --sink FILE`): appends one JSON
/// line per notification to a file, so the whole pipeline runs and can be inspected without Apple.
///
/// A line: `{"delivery_id":7,"message_code":"…","token":"…","priority":10,"expiration":0,
/// "collapse_id":"","payload":{…}}` — `payload` is the rendered APNs payload, embedded as JSON.
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
        var text: [UInt8] = []
        text.reserveCapacity(batch.reduce(0) { $0 + $1.payload.count + 160 })
        for notification in batch { FileSinkGateway.appendLine(notification, to: &text) }
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
        return batch.map { _ in .sent(apnsID: "") }
    }

    /// One JSON line for a notification (keys in a fixed order).
    static func appendLine(_ n: OutgoingNotification, to text: inout [UInt8]) {
        text.append(contentsOf: #"{"delivery_id":"#.utf8)
        text.append(contentsOf: String(n.deliveryID).utf8)
        text.append(contentsOf: #","message_code":"#.utf8)
        JSONText.appendString(n.messageCode, to: &text)
        text.append(contentsOf: #","token":"#.utf8)
        JSONText.appendString(n.deviceToken, to: &text)
        text.append(contentsOf: #","priority":"#.utf8)
        text.append(contentsOf: String(n.priority).utf8)
        text.append(contentsOf: #","expiration":"#.utf8)
        text.append(contentsOf: String(n.expiration).utf8)
        text.append(contentsOf: #","collapse_id":"#.utf8)
        JSONText.appendString(n.collapseID, to: &text)
        text.append(contentsOf: #","payload":"#.utf8)
        // The payload is rendered JSON already; an empty one is written as null.
        if n.payload.isEmpty { text.append(contentsOf: "null".utf8) } else { text.append(contentsOf: n.payload) }
        text.append(contentsOf: "}\n".utf8)
    }
}
