import PushwireDelivery
import Synchronization

/// What `APNsGateway` and `FCMGateway` share above one connection's client: `connections`
/// clients (one HTTP/2 connection and thread each), the in-flight window that bounds what is
/// outstanding, and `send`, which answers what cannot be sent at once, waits for room, and spreads
/// the rest over the clients round robin.
final class HTTP2ConnectionPool: Sendable {
    private let clients: [any APNsConnectionClient]
    /// Where the next notification goes: round robin over `clients`.
    private let nextClient = Atomic<Int>(0)
    private let window: InFlightWindow

    /// Makes `connections` clients with `make` (at least one); stops those made when one fails.
    init(connections: Int, maxInFlight: Int, make: () throws(APNsGatewayError) -> any APNsConnectionClient) throws(APNsGatewayError) {
        window = InFlightWindow(size: maxInFlight)
        var clients: [any APNsConnectionClient] = []
        for _ in 0..<max(1, connections) {
            do throws(APNsGatewayError) {
                clients.append(try make())
            } catch {
                for client in clients { client.stop() }
                throw error
            }
        }
        self.clients = clients
    }

    /// Sends `batch` and returns one outcome per notification, in order: `refusal` answers a
    /// notification without a request (nil: send it), `job` makes the request of one that goes
    /// (its outcome goes to the batch's collector, at its index). Suspends while the in-flight
    /// window is full.
    func send(_ batch: [OutgoingNotification], refusal: (OutgoingNotification) -> DeliveryOutcome?,
              job: (OutgoingNotification, _ collector: BatchCollector, _ index: Int) -> APNsJob) async -> [DeliveryOutcome] {
        guard !batch.isEmpty else { return [] }
        let collector = BatchCollector(count: batch.count, window: window)
        var sendable: [Int] = []
        sendable.reserveCapacity(batch.count)
        for (index, notification) in batch.enumerated() {
            if let refused = refusal(notification) {
                collector.refuse(index, refused)
            } else {
                sendable.append(index)
            }
        }
        var next = 0
        while next < sendable.count {
            let granted = await window.acquire(atMost: sendable.count - next)
            submit(sendable[next..<next + granted]) { job(batch[$0], collector, $0) }
            next += granted
        }
        return await collector.outcomes()
    }

    /// Makes the jobs of `indices` and spreads them over the connections' clients, round robin,
    /// one hand-over per client; each job is made straight into its client's group (no copy).
    private func submit(_ indices: ArraySlice<Int>, job: (Int) -> APNsJob) {
        guard clients.count > 1 else { return clients[0].submit(indices.map(job)) }
        // Unsigned arithmetic: the counter may wrap after 2^64 notifications without trapping.
        let first = UInt(bitPattern: nextClient.wrappingAdd(indices.count, ordering: .relaxed).oldValue)
        let count = UInt(clients.count)
        var groups = Array(repeating: [APNsJob](), count: clients.count)
        for group in groups.indices { groups[group].reserveCapacity(indices.count / clients.count + 1) }
        for (offset, index) in indices.enumerated() { groups[Int((first &+ UInt(offset)) % count)].append(job(index)) }
        for (client, group) in zip(clients, groups) { client.submit(group) }
    }

    /// Stops the clients' threads; notifications still in flight complete with `.retry`.
    func stop() { for client in clients { client.stop() } }

    /// The most notifications that were in flight at once.
    var peakInFlight: Int { window.peakInUse }

    /// Requests sent again because their connection failed before the service could act on them.
    var connectionRetryCount: Int { clients.reduce(0) { $0 + $1.connectionRetryCount } }

    /// Requests sent whole that got no answer: the service may have delivered them (`.retry`).
    var unansweredAfterSendingCount: Int { clients.reduce(0) { $0 + $1.unansweredAfterSendingCount } }
}
