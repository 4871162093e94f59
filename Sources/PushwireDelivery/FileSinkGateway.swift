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
///
/// For operators: `reopenAll()` (pushwired calls it on SIGHUP) reopens every sink at its path, so
/// logrotate can move the file away and signal; with a `Rotation` the sink itself renames the file
/// to `<path>.1` (shifting older ones to `.2` … and dropping the oldest) once it reaches a size.
public final class FileSinkGateway: NotificationGateway {
    /// Rotation by size: past `maxBytes` the file becomes `<path>.1` and a new one is started;
    /// `keep` rotated files are kept (`.1` the newest).
    public struct Rotation: Sendable, Equatable {
        /// The size at which the file is rotated, checked after each batch (so a file ends up
        /// to one batch larger).
        public var maxBytes: Int64
        /// How many rotated files to keep (at least 1).
        public var keep: Int

        /// Creates a rotation policy.
        public init(maxBytes: Int64, keep: Int = 5) {
            self.maxBytes = maxBytes
            self.keep = max(1, keep)
        }
    }

    /// The rotation of sinks opened from now on; set once by pushwired (`--sink-max-bytes`)
    /// before the services open their sink, so that the setting needs no path through them.
    public static let defaultRotation = Mutex<Rotation?>(nil)

    /// Every open sink, for `reopenAll()`.
    private static let openSinks = Mutex<[ObjectIdentifier: WeakSink]>([:])

    private struct WeakSink: @unchecked Sendable {
        // @unchecked: only read under `open`'s lock; the sink itself is Sendable.
        weak var sink: FileSinkGateway?
    }

    /// Reopens every open sink at its path (after logrotate moved the file away).
    /// - Returns: the sinks that could not be reopened, with the reason; they keep writing to
    ///   the file they had.
    @discardableResult
    public static func reopenAll() -> [OpenError] {
        let sinks = openSinks.withLock { $0.values.compactMap(\.sink) }
        var failures: [OpenError] = []
        for sink in sinks {
            do { try sink.reopen() } catch { failures.append(error) }
        }
        return failures
    }
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
    private let rotation: Rotation?
    /// The open file; the lock makes one batch's write, a rotation and a reopen atomic.
    private let descriptor: Mutex<OpenFile>

    private struct OpenFile {
        var fd: Int32
        /// Its size as far as this process knows (it is the only writer).
        var size: Int64
    }

    /// Opens (creating) `path` for appending.
    /// - Parameter rotation: rotate by size (default: `defaultRotation`), nil: never.
    /// - Throws: `OpenError` when the file cannot be opened.
    public init(path: String, fsyncEachBatch: Bool = false,
                rotation: Rotation? = FileSinkGateway.defaultRotation.withLock { $0 }) throws(OpenError) {
        self.path = path
        self.fsyncEachBatch = fsyncEachBatch
        self.rotation = rotation
        self.descriptor = Mutex(try FileSinkGateway.openFile(path))
        let id = ObjectIdentifier(self)
        FileSinkGateway.openSinks.withLock { $0[id] = WeakSink(sink: self) }
    }

    deinit {
        let id = ObjectIdentifier(self)
        FileSinkGateway.openSinks.withLock { _ = $0.removeValue(forKey: id) }
        descriptor.withLock { _ = close($0.fd) }
    }

    private static func openFile(_ path: String) throws(OpenError) -> OpenFile {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        if fd < 0 { throw OpenError(path: path, code: errno) }
        var info = stat()
        let size = fstat(fd, &info) == 0 ? Int64(info.st_size) : 0
        return OpenFile(fd: fd, size: size)
    }

    /// Opens the path anew and writes there from now on (the old descriptor is closed): after
    /// logrotate renamed the file, new lines go to a new file at the path.
    /// - Throws: `OpenError`; the sink then keeps the file it had.
    public func reopen() throws(OpenError) {
        let fresh = try FileSinkGateway.openFile(path)
        descriptor.withLock { file in
            close(file.fd)
            file = fresh
        }
    }

    /// Renames the file to `.1` (older ones up by one, the oldest dropped) and starts a new one.
    /// Called under the lock, after a batch was written whole.
    private func rotate(_ file: inout OpenFile, keep: Int) {
        for index in stride(from: keep - 1, through: 1, by: -1) {
            rename("\(path).\(index)", "\(path).\(index + 1)")
        }
        guard rename(path, "\(path).1") == 0, let fresh = try? FileSinkGateway.openFile(path) else {
            // Could not rotate (a read-only directory…): keep appending to the file we have.
            return
        }
        close(file.fd)
        file = fresh
    }

    /// Appends the batch; every notification is `.sent` once its line is written, or `.retry` when
    /// the write failed (a full disk).
    public func deliver(_ batch: [OutgoingNotification]) async -> [DeliveryOutcome] {
        let text = FileSinkGateway.lines(batch)
        let rotation = self.rotation
        let failure: Int32? = descriptor.withLock { file in
            let fd = file.fd
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
            file.size += Int64(text.count)
            if let rotation, file.size >= rotation.maxBytes { rotate(&file, keep: rotation.keep) }
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
        // Room for every line, so that the text is never copied to a larger buffer as it grows
        // (with 160 bytes a line besides the payload it was, once per batch: 0.85 % of a
        // CreateMessage's instructions): the keys and numbers take about 130 bytes (180 with
        // the largest numbers), the rest is the token, the code and the collapse id, escaped
        // (which rarely adds any).
        var text: [UInt8] = []
        text.reserveCapacity(batch.reduce(0) { room, n in
            room + 160 + n.payload.count + n.deviceToken.utf8.count + n.messageCode.utf8.count + n.collapseID.utf8.count
        })
        // The index of the notification the shared parts were made for, and the parts: what
        // goes between the delivery id and the token, and everything after the token. Each
        // part holds its keys too, so that a line is five appends (each append costs about
        // as much as copying the bytes of a short key).
        var shared: (index: Int, head: [UInt8], tail: [UInt8])?
        for index in batch.indices {
            // Fields read in place: a copy of each notification retained four buffers.
            if !(shared.map { FileSinkGateway.sharesLineParts(batch, index, $0.index) } ?? false) {
                let n = batch[index]
                var head: [UInt8] = []
                head.reserveCapacity(32 + n.messageCode.utf8.count)
                JSONText.appendLiteral(#","message_code":"#, to: &head)
                JSONText.appendString(n.messageCode, to: &head)
                JSONText.appendLiteral(#","token":"#, to: &head)
                var tail: [UInt8] = []
                tail.reserveCapacity(160 + n.collapseID.utf8.count + n.payload.count)
                JSONText.appendLiteral(#","platform":""#, to: &tail)
                tail.append(contentsOf: PushPlatform.name(deviceType: n.deviceType).utf8)
                JSONText.appendLiteral(#"","priority":"#, to: &tail)
                JSONText.appendDecimal(Int64(n.priority), to: &tail)
                JSONText.appendLiteral(#","expiration":"#, to: &tail)
                JSONText.appendDecimal(n.expiration, to: &tail)
                JSONText.appendLiteral(#","collapse_id":"#, to: &tail)
                JSONText.appendString(n.collapseID, to: &tail)
                JSONText.appendLiteral(#","payload":"#, to: &tail)
                // The payload is rendered JSON already; an empty one is written as null.
                if n.payload.isEmpty { JSONText.appendLiteral("null", to: &tail) } else { tail.append(contentsOf: n.payload) }
                JSONText.appendLiteral("}\n", to: &tail)
                shared = (index, head, tail)
            }
            guard let parts = shared else { continue }
            JSONText.appendLiteral(#"{"delivery_id":"#, to: &text)
            JSONText.appendDecimal(batch[index].deliveryID, to: &text)
            text.append(contentsOf: parts.head)
            JSONText.appendString(batch[index].deviceToken, to: &text)
            text.append(contentsOf: parts.tail)
        }
        return text
    }

    /// Whether the line of `batch[a]` differs from that of `batch[b]` only in the delivery id and
    /// the token. Payloads rendered once per language share their storage, which `==` compares first.
    private static func sharesLineParts(_ batch: [OutgoingNotification], _ a: Int, _ b: Int) -> Bool {
        batch[a].deviceType == batch[b].deviceType
            && batch[a].priority == batch[b].priority && batch[a].expiration == batch[b].expiration
            && batch[a].messageCode == batch[b].messageCode && batch[a].collapseID == batch[b].collapseID
            && batch[a].payload == batch[b].payload
    }
}
