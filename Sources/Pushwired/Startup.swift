import Dispatch
import PushwireService
import PushwireStore
import Synchronization

/// Runs `body` in a task and waits for it on the calling thread: for startup, where `pushwired`'s
/// top-level code (no task of its own) must have the services before it starts the server.
func waitForStartup<T: Sendable>(_ body: @escaping @Sendable () async throws(ServicesStartupError) -> T) -> Result<T, ServicesStartupError> {
    let outcome = Mutex<Result<T, ServicesStartupError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do throws(ServicesStartupError) {
            let value = try await body()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return outcome.withLock { $0 } ?? .failure(.dataDirectory(.internalError("startup ended without a result")))
}
