import Foundation
import PushwireStore
import Synchronization

/// Keeps this server's caches following the changes other servers sharing the database make,
/// as the store's change feed (`PushwireStore.observeChanges`) reports them:
///
/// - a device changed elsewhere loses its registration fingerprint at once, on the feed's
///   thread (`RegistrationFingerprints.forget`), so its next registration is written;
/// - an application created or updated elsewhere (name, credentials, access token) is read
///   again into the `ApplicationDirectory` (the gateways follow its record);
/// - a categories change drops the cached list and its encoded answers at once (calls then read
///   the store) and reads the new list into the cache;
/// - `.everything` (the feed may have missed changes) forgets every fingerprint and reads every
///   application and its categories again.
///
/// Known devices (`KnownDevices`) are not followed: "this device exists" is never taken back
/// (devices are never deleted); "it had a token when read", which an unregistration takes back,
/// only feeds `tokenless_devices`, a best-effort warning that never changes who is targeted
/// (PROTOCOL.md). Reads run in a task, one change after the
/// other in feed order, started when a change arrives and ended when none is left, so a server
/// on SQLite (whose feed is silent) runs none.
final class StoreChangeFollower: Sendable {
    private struct State {
        var queue: [StoreChange] = []
        var running = false
        var stopped = false
    }

    private let store: any PushwireStore
    private let directory: ApplicationDirectory
    private let fingerprints: RegistrationFingerprints
    private let state = Mutex(State())
    /// How long to wait before reading again after a refresh failed (the database is down).
    static let retryDelay: Duration = .seconds(1)

    /// Follows `store`'s changes into `directory` and `fingerprints` (the registry's).
    init(store: any PushwireStore, directory: ApplicationDirectory, fingerprints: RegistrationFingerprints) {
        self.store = store
        self.directory = directory
        self.fingerprints = fingerprints
    }

    /// Takes one change from the feed: what can be forgotten is, now; reads are queued.
    func receive(_ change: StoreChange) {
        switch change {
        case .devices(let applicationID, let hwids):
            for hwid in hwids {
                fingerprints.forget(key: RegistrationFingerprints.key(applicationID: applicationID, hwid: hwid))
            }
            return
        case .everything:
            fingerprints.forgetAll()
        case .categories(let applicationID, let version):
            if let code = directory.code(applicationID: applicationID) {
                directory.categoriesChanged(code: code, version: version)
            }
        case .application:
            break
        }
        enqueue(change)
    }

    /// Stops following: queued reads are dropped (the store is closing).
    func stop() {
        state.withLock { $0.stopped = true }
    }

    private func enqueue(_ change: StoreChange) {
        let start = state.withLock { state -> Bool in
            if state.stopped { return false }
            // Everything is read again anyway: what was queued before it adds nothing.
            if change == .everything { state.queue.removeAll() }
            state.queue.append(change)
            if state.running { return false }
            state.running = true
            return true
        }
        guard start else { return }
        Task { await self.drain() }
    }

    private func drain() async {
        while true {
            let next = state.withLock { state -> StoreChange? in
                if state.stopped || state.queue.isEmpty {
                    state.running = false
                    return nil
                }
                return state.queue.removeFirst()
            }
            guard let change = next else { return }
            do throws(StoreError) {
                try await apply(change)
            } catch {
                if case .closed = error { return stop() }
                // Read again later (the database may be down; when it returns, the feed also
                // reconnects and reports `.everything`): nothing stays stale for good.
                try? await Task.sleep(for: StoreChangeFollower.retryDelay)
                state.withLock { state in
                    if !state.queue.contains(.everything) { state.queue.insert(change, at: 0) }
                }
            }
        }
    }

    private func apply(_ change: StoreChange) async throws(StoreError) {
        switch change {
        case .application:
            try await reloadApplications(categoriesOfAll: false)
        case .categories(let applicationID, _):
            guard let code = directory.code(applicationID: applicationID) else {
                // Created elsewhere and not read yet: read the applications, categories included.
                return try await reloadApplications(categoriesOfAll: false)
            }
            try await readCategories(code: code, applicationID: applicationID)
        case .everything:
            try await reloadApplications(categoriesOfAll: true)
        case .devices:
            break
        }
    }

    /// Reads every application into the directory, then the categories of those whose list is
    /// not cached (new ones, or with a newer version), or of all of them.
    private func reloadApplications(categoriesOfAll: Bool) async throws(StoreError) {
        var applications: [ApplicationRecord]
        // A change this server made while the list was being read may be newer than the list
        // (its own change is not reported back): then the list is read again.
        repeat {
            let readAt = directory.installCount
            applications = try await store.listApplications()
            if directory.install(applications, readAt: readAt) { break }
        } while true
        for application in applications {
            if !categoriesOfAll, case .known(_, _, _?) = directory.categories(code: application.code) { continue }
            try await readCategories(code: application.code, applicationID: application.id)
        }
    }

    private func readCategories(code: String, applicationID: Int64) async throws(StoreError) {
        let set = try await store.categories(applicationID: applicationID)
        directory.cache(code: code, categories: set.categories.map(WireConversions.category), version: set.version)
    }
}
