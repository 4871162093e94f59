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
    /// notification without a request (nil: send it), `job` makes the request of one that goes.
    /// Suspends while the in-flight window is full.
    func send(_ batch: [OutgoingNotification], refusal: (OutgoingNotification) -> DeliveryOutcome?,
              job: (OutgoingNotification, _ completion: @escaping @Sendable (DeliveryOutcome) -> Void) -> APNsJob) async -> [DeliveryOutcome] {
        guard !batch.isEmpty else { return [] }
        let collector = BatchCollector(count: batch.count)
        var sendable: [Int] = []
        sendable.reserveCapacity(batch.count)
        for (index, notification) in batch.enumerated() {
            if let refused = refusal(notification) {
                collector.complete(index, refused)
            } else {
                sendable.append(index)
            }
        }
        let window = self.window
        var next = 0
        while next < sendable.count {
            let granted = await window.acquire(atMost: sendable.count - next)
            let jobs = sendable[next..<next + granted].map { index in
                job(batch[index]) { outcome in
                    window.release()
                    collector.complete(index, outcome)
                }
            }
            next += granted
            submit(jobs)
        }
        return await collector.outcomes()
    }

    /// Spreads `jobs` over the connections' clients, round robin, one hand-over per client.
    private func submit(_ jobs: [APNsJob]) {
        guard clients.count > 1 else { return clients[0].submit(jobs) }
        // Unsigned arithmetic: the counter may wrap after 2^64 notifications without trapping.
        let first = UInt(bitPattern: nextClient.wrappingAdd(jobs.count, ordering: .relaxed).oldValue)
        var groups = Array(repeating: [APNsJob](), count: clients.count)
        for (offset, job) in jobs.enumerated() { groups[Int((first &+ UInt(offset)) % UInt(clients.count))].append(job) }
        for (client, group) in zip(clients, groups) { client.submit(group) }
    }

    /// Stops the clients' threads; notifications still in flight complete with `.retry`.
    func stop() { for client in clients { client.stop() } }

    /// The most notifications that were in flight at once.
    var peakInFlight: Int { window.peakInUse }

    /// Requests sent again because their connection failed before the service answered.
    var connectionRetryCount: Int { clients.reduce(0) { $0 + $1.connectionRetryCount } }
}
