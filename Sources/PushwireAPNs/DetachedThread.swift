import COpenSSL
import Glibc

/// Starts the threads that block outside Swift's executors: an HTTP/2 connection's loop
/// (`NGHTTP2Client`), an OAuth2 grant (`OAuth2TokenCache`).
enum DetachedThread {
    private final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    /// Runs `body` on a new detached thread; false when the thread could not be created.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            // The thread owns the +1 taken above (and so whatever `body` holds) until it returns.
            guard let context else { return nil }
            let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
            box.body()
            // libcurl and OpenSSL keep per-thread state; free this thread's now, not at exit.
            OPENSSL_thread_stop()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
