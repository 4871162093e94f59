import PushwireRuntime
import PushwireStore

extension PushwireServices {
    /// Adds the services' part of the HTTP door's operations endpoints to `server`: the store's
    /// check in `GET /healthz`, and the store's figures in `GET /metrics`. Call before `start()`.
    public func registerOperations(on server: Server) {
        let store = self.operationsStore
        let deliveries = messages.deliveryMetrics
        server.addHealthCheck("store") {
            let statistics = store.statistics
            return HealthReport(serving: true, state: "open: \(statistics.transactions) transactions committed")
        }
        server.addMetricsCollector { out in
            // Read once: the writer's counters move while the scrape runs.
            let statistics = store.statistics
            out.family("pushwire_store_commit_duration_seconds", "summary", help: "Time the store's transactions spent in COMMIT.")
            out.sample("pushwire_store_commit_duration_seconds_sum", [], Double(statistics.commitNanoseconds) / 1e9)
            out.sample("pushwire_store_commit_duration_seconds_count", [], UInt64(statistics.transactions))
            out.family("pushwire_store_commit_batch_writes", "summary", help: "Writes per committed transaction (group commit batch size).")
            out.sample("pushwire_store_commit_batch_writes_sum", [], UInt64(statistics.writes))
            out.sample("pushwire_store_commit_batch_writes_count", [], UInt64(statistics.transactions))
            out.family("pushwire_deliveries_total", "counter",
                       help: "Notifications handed to a gateway, by gateway and outcome (retry: a transient failure, tried again later).")
            for (gateway, outcome, count) in deliveries.snapshot {
                out.sample("pushwire_deliveries_total", [("gateway", gateway), ("outcome", outcome)], count)
            }
        }
    }
}
