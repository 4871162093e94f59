import Dispatch
import PushwireStore
import Synchronization

/// Runs `body` in a task and waits for it on the calling thread: for startup, where `pushwired`'s
/// top-level code (no task of its own) must have the services before it starts the server.
func waitForStartup<T: Sendable>(_ body: @escaping @Sendable () async throws(StoreError) -> T) -> Result<T, StoreError> {
    let outcome = Mutex<Result<T, StoreError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do throws(StoreError) {
            let value = try await body()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return outcome.withLock { $0 } ?? .failure(.internalError("startup ended without a result"))
}
