#if canImport(Glibc)
import Glibc
#endif
import PushwireWire

/// What a raw fast path does with a call (see `Server.registerRawFastPath`).
public enum RawAnswer: Sendable {
    /// The call succeeds now with this encoded response message (often a cached array, so
    /// answering costs one copy into the connection's output).
    case response([UInt8])
    /// The answer comes later from another thread: the runtime tracks the call (deadline,
    /// Cancel, connection close) and calls `start` once on the loop with the call's completion.
    case later(@Sendable (_ complete: @escaping RawCompletion) -> Void)
    /// Not handled here: the method's registered handler decodes and answers the call as usual.
    case decline
}

/// Computes a `.later` call's answer, on the call's event loop: the encoded response, or the
/// call's error.
public typealias RawResult = @Sendable () -> Result<[UInt8], RPCError>

/// Ends a `.later` call: call it exactly once, from any thread, with the closure that computes
/// the answer. That closure runs on the call's event loop — even when a deadline, a Cancel or a
/// closed connection answered the call first, so that its bookkeeping always happens (unless
/// the server stops first) — which keeps the completing thread's work to one hand-over: that
/// thread is often the store's syncer, which acknowledges every durable write.
public typealias RawCompletion = @Sendable (_ answer: @escaping RawResult) -> Void

/// A raw fast path: the request message's bytes, in place in the connection's buffer (valid
/// only during the call), in; what to do with the call out.
public typealias RawHandler = @Sendable (UnsafeRawBufferPointer) -> RawAnswer

/// A raw fast path's handler as the tables that keep one per path hold it. In a struct: a
/// closure stored as a dictionary's value (or in a tuple in an array) is kept in its most general
/// form, and taken out it is called through conversion thunks — four on each SyncCategories
/// call, 2 % of it (callgrind).
struct RawFastPathHandler: Sendable {
    let call: RawHandler
}

/// A request frame read in place: the fields the fast path needs, without unpacking the frame
/// with protobuf-c nor building the `Request` wrapper and its metadata array.
///
/// Strict on purpose: anything but one well-formed `Frame { call_id, request { method,
/// timeout_ms, metadata (ASCII, no NUL), message } }` is not scanned (nil), and such a frame takes
/// the regular path, whose decoder reports what is wrong with it. So the fast path never accepts a
/// frame the regular path would reject (`RawFrameDifferential` states the rule as a function).
/// A scanned call that no fast path takes is lifted from the scan (`request()`), which the same
/// rule proves equal to what the decoder lifts.
struct ScannedRequest {
    var callID: UInt32 = 0
    var method = UnsafeRawBufferPointer(start: nil, count: 0)
    var timeoutMS: UInt32 = 0
    var message = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The request's own bytes, whose metadata `request()` reads (the fast paths ignore it).
    private var requestBytes = UnsafeRawBufferPointer(start: nil, count: 0)

    init?(frame payload: UnsafeRawBufferPointer) {
        var reader = HotFrames.Reader(payload)
        var sawCallID = false, sawRequest = false
        while !reader.atEnd {
            guard let (field, wireType) = reader.tag() else { return nil }
            switch (field, wireType) {
            case (1, 0):
                guard !sawCallID, let value = reader.varint(), value <= UInt64(UInt32.max) else { return nil }
                callID = UInt32(value)
                sawCallID = true
            case (2, 2):
                guard !sawRequest, let request = reader.submessage(), scanRequest(request) else { return nil }
                requestBytes = request.bytes
                sawRequest = true
            default:
                return nil
            }
        }
        guard sawRequest else { return nil }
    }

    private mutating func scanRequest(_ request: HotFrames.Reader) -> Bool {
        var reader = request
        var sawMethod = false, sawTimeout = false, sawMessage = false
        while !reader.atEnd {
            guard let (field, wireType) = reader.tag() else { return false }
            switch (field, wireType) {
            case (1, 2):
                // Only fast paths' paths (ASCII) will match, but the scan stays as strict as the
                // decoder on its own, which refuses a NUL here (RawFrameDifferential).
                guard !sawMethod, let path = reader.submessage(), HotFrames.isPlainASCII(path.bytes) else { return false }
                method = path.bytes
                sawMethod = true
            case (2, 0):
                guard !sawTimeout, let value = reader.varint(), value <= UInt64(UInt32.max) else { return false }
                timeoutMS = UInt32(value)
                sawTimeout = true
            case (3, 2):
                // The fast paths ignore metadata, but the regular decoder checks it: only plain
                // ASCII key/value pairs without NUL pass here, which that check accepts too (a
                // NUL in a string is a frame the decoder refuses, answered with GoAway).
                guard let entry = reader.submessage(), Self.isASCIIMetadata(entry) else { return false }
            case (4, 2):
                guard !sawMessage, let body = reader.submessage() else { return false }
                message = body.bytes
                sawMessage = true
            default:
                return false
            }
        }
        return sawMethod
    }

    /// The request as `Frame(decoding:)` lifts it from the same frame: for a scanned call that no
    /// fast path takes, without protobuf-c's unpack, the validator's walk and the lifting (a
    /// sixth of a Health/Check call). Only for a frame the scan accepted, whose structure it checked.
    func request() -> Request {
        var request = Request()
        request.method = String(decoding: method, as: UTF8.self)
        request.timeoutMS = timeoutMS
        request.message = Array(message)
        var reader = HotFrames.Reader(requestBytes)
        while !reader.atEnd, let (field, wireType) = reader.tag() {
            if field == 3, let entry = reader.submessage() {
                request.metadata.append(Self.metadata(entry))
            } else if !reader.skip(wireType: wireType) {
                break
            }
        }
        return request
    }

    /// A metadata entry the scan accepted: key and value, the last of each when repeated (as
    /// protobuf-c keeps the last value of a singular field).
    private static func metadata(_ entry: HotFrames.Reader) -> Metadata {
        var reader = entry
        var metadata = Metadata()
        while !reader.atEnd, let (field, _) = reader.tag(), let text = reader.submessage() {
            if field == 1 { metadata.key = String(decoding: text.bytes, as: UTF8.self) }
            if field == 2 { metadata.value = String(decoding: text.bytes, as: UTF8.self) }
        }
        return metadata
    }

    private static func isASCIIMetadata(_ entry: HotFrames.Reader) -> Bool {
        var reader = entry
        while !reader.atEnd {
            guard let (field, wireType) = reader.tag(), field <= 2, wireType == 2, let text = reader.submessage(),
                  HotFrames.isPlainASCII(text.bytes) else { return false }
        }
        return true
    }
}

/// The raw fast paths of a started server, found by comparing method path bytes (there are a
/// handful, so a linear scan beats hashing a `String` built for the lookup). Classes: a lookup
/// hands back one reference, where a tuple of the path, the handler and the answer sizes cost a
/// retain and a release of each on every call (9 % of a SyncCategories call's samples).
final class RawFastPaths: Sendable {
    /// One fast path: its method's path, the handler, the method's record of answer sizes, and
    /// where its answered calls are counted (nil: call metrics are off).
    final class Entry: Sendable {
        let path: [UInt8]
        let handler: RawHandler
        let answers: AnswerSizes
        let counter: CallCounter?

        init(path: [UInt8], handler: @escaping RawHandler, answers: AnswerSizes, counter: CallCounter? = nil) {
            self.path = path
            self.handler = handler
            self.answers = answers
            self.counter = counter
        }

        /// Counts a call this fast path answered (a declined one is counted by the method's
        /// handler, which answers it). The door that answers records it: wrapping the handler
        /// to count put three closures around every `.later` call's completion.
        func answered(_ status: StatusCode, arrivalNanos: UInt64) {
            counter?.record(status, arrivalNanos: arrivalNanos)
        }

        /// A `.later` call's outcome from its answer, computed (on the call's loop) and counted:
        /// what both doors answer with.
        func outcome(of answer: RawResult, arrivalNanos: UInt64) -> CallOutcome {
            let outcome: CallOutcome
            switch answer() {
            case .success(let body): outcome = CallOutcome(status: .ok, message: "", body: body)
            case .failure(let error): outcome = .failure(error)
            }
            answered(outcome.status, arrivalNanos: arrivalNanos)
            return outcome
        }
    }

    /// Where one method's calls are counted.
    struct CallCounter: Sendable {
        let metrics: CallMetrics
        let index: Int

        func record(_ status: StatusCode, arrivalNanos: UInt64) {
            metrics.record(index, status: status, nanos: monotonicNanos() &- arrivalNanos)
        }
    }

    private let entries: [Entry]

    /// In path order, so that which path is compared first does not change from run to run.
    init(_ entries: [Entry]) {
        self.entries = entries.sorted { $0.path.lexicographicallyPrecedes($1.path) }
    }

    /// Fast paths with records of their own (the scanner's fuzz target, which runs no server).
    convenience init(_ handlers: [String: RawHandler]) {
        self.init(handlers.map { path, handler in
            Entry(path: Array(path.utf8), handler: handler, answers: AnswerSizes())
        })
    }

    var isEmpty: Bool { entries.isEmpty }

    func entry(forPath path: UnsafeRawBufferPointer) -> Entry? {
        for entry in entries where entry.path.count == path.count {
            let equal = entry.path.withUnsafeBytes { own in
                guard let mine = own.baseAddress, let theirs = path.baseAddress else { return own.count == 0 }
                return memcmp(mine, theirs, own.count) == 0
            }
            if equal { return entry }
        }
        return nil
    }
}
