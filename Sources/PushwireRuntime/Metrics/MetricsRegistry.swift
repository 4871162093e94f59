import Synchronization

/// What `GET /metrics` renders: the runtime's own figures (calls, connections, the HTTP door's
/// requests and bytes) and those of the collectors the rest of the server adds (store, queues,
/// deliveries), each asked for its current values at scrape time.
final class MetricsRegistry: Sendable {
    let calls: CallMetrics
    let http = HTTPDoorMetrics()
    private let collectors: [@Sendable (inout PrometheusText) -> Void]
    private let binaryDoor: @Sendable () -> BinaryDoorFigures

    init(calls: CallMetrics, collectors: [@Sendable (inout PrometheusText) -> Void], binaryDoor: @escaping @Sendable () -> BinaryDoorFigures) {
        self.calls = calls
        self.collectors = collectors
        self.binaryDoor = binaryDoor
    }

    /// The whole exposition, in the Prometheus text format.
    func render() -> String { renderExposition().text }

    /// The whole exposition as the UTF-8 bytes `GET /metrics` answers.
    func renderBytes() -> [UInt8] { renderExposition().bytes }

    private func renderExposition() -> PrometheusText {
        var out = PrometheusText()
        let door = binaryDoor()
        out.family("pushwire_connections", "gauge", help: "Open client connections, by door.")
        out.sample("pushwire_connections", [("door", "rpc")], Double(door.connections))
        out.sample("pushwire_connections", [("door", "http")], Double(http.openConnections.load(ordering: .relaxed)))
        out.counter("pushwire_connections_refused_descriptors_total",
                    help: "Connections (either door) accepted and closed at once because their descriptor was within the reserve under the process's open-file limit.",
                    UInt64(door.descriptorRefusals))
        out.family("pushwire_rpc_bytes_total", "counter", help: "Bytes through the binary door, by direction.")
        out.sample("pushwire_rpc_bytes_total", [("direction", "received")], door.bytesReceived)
        out.sample("pushwire_rpc_bytes_total", [("direction", "sent")], door.bytesSent)
        out.family("pushwire_blocking_queue_jobs", "gauge",
                   help: "Jobs waiting for a thread of a blocking pool: store reads of the binary door (blocking), large requests' checks (large_request), the HTTP door's blocking calls (http).")
        out.sample("pushwire_blocking_queue_jobs", [("pool", "blocking")], Double(door.blockingQueued))
        out.sample("pushwire_blocking_queue_jobs", [("pool", "large_request")], Double(door.largeRequestQueued))
        out.sample("pushwire_blocking_queue_jobs", [("pool", "http")], Double(BlockingPool.httpDoor.queuedJobs))
        calls.render(into: &out)
        http.render(into: &out)
        for collector in collectors { collector(&out) }
        return out
    }
}

/// The binary door's figures a scrape reads: open connections, bytes each way, queued jobs.
struct BinaryDoorFigures: Sendable {
    var connections = 0
    var bytesReceived: UInt64 = 0
    var bytesSent: UInt64 = 0
    var blockingQueued = 0
    var largeRequestQueued = 0
    var descriptorRefusals = 0
}

/// The HTTP door's own counters: connections, requests by status, bytes each way.
final class HTTPDoorMetrics: Sendable {
    let openConnections = Atomic<Int>(0)
    /// Statuses counted one by one; any other lands on the class's `Nxx` slot.
    private static let statuses = [200, 400, 401, 403, 404, 405, 408, 409, 413, 414, 415, 429, 431, 499, 500, 501, 503, 504]
    private static let classSlots = 5
    private enum Slot {
        static let accepted = 0, bytesIn = 1, bytesOut = 2, first = 3
    }
    private let counters = ShardedCounters(count: Slot.first + statuses.count + classSlots)

    /// Counts one accepted connection.
    func connectionAccepted() { counters.add(Slot.accepted) }

    /// Counts bytes read from clients.
    func received(_ count: Int) { counters.add(Slot.bytesIn, UInt64(count)) }

    /// Counts bytes written to clients.
    func sent(_ count: Int) { counters.add(Slot.bytesOut, UInt64(count)) }

    /// Counts one answered request.
    func answered(status: Int) {
        if let index = Self.statuses.firstIndex(of: status) {
            counters.add(Slot.first + index)
        } else {
            counters.add(Slot.first + Self.statuses.count + min(max(status / 100 - 1, 0), Self.classSlots - 1))
        }
    }

    func render(into out: inout PrometheusText) {
        out.counter("pushwire_http_connections_accepted_total", help: "Connections the HTTP door accepted.", counters.value(Slot.accepted))
        out.family("pushwire_http_requests_total", "counter", help: "HTTP requests answered, by status code.")
        for (index, status) in Self.statuses.enumerated() {
            let value = counters.value(Slot.first + index)
            if value > 0 { out.sample("pushwire_http_requests_total", [("status", "\(status)")], value) }
        }
        for slot in 0..<Self.classSlots {
            let value = counters.value(Slot.first + Self.statuses.count + slot)
            if value > 0 { out.sample("pushwire_http_requests_total", [("status", "\(slot + 1)xx")], value) }
        }
        out.family("pushwire_http_bytes_total", "counter", help: "Bytes through the HTTP door, by direction.")
        out.sample("pushwire_http_bytes_total", [("direction", "received")], counters.value(Slot.bytesIn))
        out.sample("pushwire_http_bytes_total", [("direction", "sent")], counters.value(Slot.bytesOut))
    }
}
