import PushwireRuntime
import PushwireStore

extension PushwireServices {
    /// Adds the services' part of the operations endpoints to `server`: the store's health as
    /// the server's health check (`GET /healthz` and Health/Check both answer from it: not
    /// serving while the store cannot write — a full disk, a failed fsync, closed), and the
    /// store's figures in `GET /metrics`. Call before `start()`.
    public func registerOperations(on server: Server) {
        let store = self.operationsStore
        let deliveries = messages.deliveryMetrics
        let apns = messages.apnsStatistics
        let fcm = messages.fcmStatistics
        let pipeline = messages.pipeline
        server.addHealthCheck("store") {
            switch store.health {
            case .serving:
                // No figure here: Health/Check asks on every call (the commit counts are on /metrics).
                return HealthReport(serving: true, state: "open")
            case .notServing(let reason):
                return HealthReport(serving: false, state: reason)
            }
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
            out.family("pushwire_store_transaction_retries_total", "counter",
                       help: "Transactions run again after the database aborted them as a deadlock victim or for a serialization failure.")
            out.sample("pushwire_store_transaction_retries_total", [], UInt64(statistics.retriedTransactions))
            out.gauge("pushwire_store_queued_writes", help: "Writes queued for the store's writer, not yet in a transaction.",
                      Double(statistics.queuedWrites))
            out.family("pushwire_deliveries_total", "counter",
                       help: "Notifications answered by a gateway, by gateway, device platform and outcome (retry: a transient failure, tried again later).")
            for (gateway, platform, outcome, count) in deliveries.snapshot {
                out.sample("pushwire_deliveries_total", [("gateway", gateway), ("platform", platform), ("outcome", outcome)], count)
            }
            out.gauge("pushwire_gateway_notifications_in_flight", help: "Notifications handed to gateways and not answered yet.",
                      Double(deliveries.notificationsInFlight))
            let queues = pipeline.queueFigures
            out.gauge("pushwire_delivery_waiting_messages", help: "Messages created, due, and waiting in memory for a delivery slot.",
                      Double(queues.waiting))
            out.gauge("pushwire_delivery_cached_message_bytes",
                      help: "Bytes (estimated) of created messages handed to the delivery scheduler in memory: records and decoded specs, under one budget.",
                      Double(pipeline.cachedMessageBytes))
            out.family("pushwire_delivery_running_messages", "gauge", help: "Messages being sent now, by size (small: batched with others).")
            out.sample("pushwire_delivery_running_messages", [("size", "small")], Double(queues.runningSmall))
            out.sample("pushwire_delivery_running_messages", [("size", "large")], Double(queues.runningLarge))
            let flow = pipeline.flowMetrics
            out.family("pushwire_messages_total", "counter",
                       help: "Messages that entered each status on this server (scheduled: created; sending; done; cancelled).")
            for (status, count) in flow.transitions {
                out.sample("pushwire_messages_total", [("status", status)], count)
            }
            out.counter("pushwire_fanout_targets_total", help: "Devices read as a message's targets and handed to the fan-out (first attempts).",
                        flow.targetsFannedOut)
            let figures = apns()
            out.gauge("pushwire_apns_gateways", help: "APNs gateways open (one per application with APNs settings in use).", Double(figures.gateways))
            out.counter("pushwire_apns_provider_tokens_signed_total", help: "APNs provider tokens (ES256 JWTs) signed.", UInt64(figures.tokens))
            out.counter("pushwire_apns_connection_retries_total",
                        help: "APNs requests sent again after their connection failed before APNs could act on them.", UInt64(figures.connectionRetries))
            out.counter("pushwire_apns_unanswered_after_sending_total",
                        help: "APNs requests sent whole that got no answer (connection lost, timeout): perhaps delivered, retried as a new attempt.",
                        UInt64(figures.unansweredAfterSending))
            let firebase = fcm()
            out.gauge("pushwire_fcm_gateways", help: "FCM gateways open (one per application with FCM settings in use).", Double(firebase.gateways))
            out.counter("pushwire_fcm_access_tokens_granted_total",
                        help: "FCM OAuth2 access tokens granted (service-account JWT grants: first use, expiry and 401 refreshes).",
                        UInt64(firebase.tokens))
            out.counter("pushwire_fcm_access_token_grant_failures_total",
                        help: "FCM OAuth2 access-token grants that failed (each tried again after a backoff).", UInt64(firebase.tokenFailures))
            out.counter("pushwire_fcm_connection_retries_total",
                        help: "FCM requests sent again after their connection failed before FCM could act on them.", UInt64(firebase.connectionRetries))
            out.counter("pushwire_fcm_unanswered_after_sending_total",
                        help: "FCM requests sent whole that got no answer (connection lost, timeout): perhaps delivered, retried as a new attempt.",
                        UInt64(firebase.unansweredAfterSending))
        }
    }
}
