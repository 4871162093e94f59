import PushwireWire
import Synchronization

/// What a handler knows about the call it answers, besides the request message.
public struct RequestContext: Sendable {
    /// The call's id on its connection.
    public let callID: UInt32
    /// The method path, e.g. `/pushwire.v1.Health/Check`.
    public let method: String
    /// The request's metadata, as sent.
    public let metadata: [Metadata]
    /// The address of the peer.
    public let peer: SocketAddress
    /// The deadline on the monotonic clock (nanoseconds), if the call has one.
    let deadlineNanos: UInt64?
    /// When the request arrived, on the monotonic clock (nanoseconds): where the call metrics'
    /// duration starts.
    let arrivalNanos: UInt64
    let cancellation: CancellationFlag?

    init(callID: UInt32, method: String, metadata: [Metadata], peer: SocketAddress, arrivalNanos: UInt64, deadlineNanos: UInt64?,
         cancellation: CancellationFlag?) {
        self.callID = callID
        self.method = method
        self.metadata = metadata
        self.peer = peer
        self.arrivalNanos = arrivalNanos
        self.deadlineNanos = deadlineNanos
        self.cancellation = cancellation
    }

    /// The first value of metadata `key` (keys are lower-case), if present.
    public func metadata(_ key: String) -> String? {
        metadata.first { $0.key == key }?.value
    }

    /// Time left before the deadline; `nil` when the call has none, `.zero` once it has passed.
    public var timeRemaining: Duration? {
        guard let deadlineNanos else { return nil }
        let now = monotonicNanos()
        return deadlineNanos > now ? .nanoseconds(Int64(deadlineNanos - now)) : .zero
    }

    /// True once the call was cancelled by the peer, its deadline passed, or its connection closed:
    /// an off-loop handler may stop early, since its result will be dropped.
    public var isCancelled: Bool {
        cancellation?.isSet ?? false
    }
}

/// Set once when a call is abandoned; read by its handler on any thread.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    var isSet: Bool { flag.load(ordering: .relaxed) }

    func set() { flag.store(true, ordering: .relaxed) }
}
