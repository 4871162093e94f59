#if canImport(Glibc)
import Glibc
#endif

/// Turns signals into ordinary calls on a dedicated thread: the signals are blocked in the
/// creating thread (and so in every thread started after it) and taken with `sigwait`, so no work
/// ever happens inside a signal handler.
///
/// `@unchecked Sendable`: immutable after init; the thread only reads `signals` and `action`.
package final class SignalWatcher: @unchecked Sendable {
    private let signals: sigset_t
    private let action: @Sendable (Int32, Int) -> Void
    private let thread = WorkerThread(name: "pw-signals")

    /// Blocks `signals` in the calling thread and starts the watching thread.
    /// - Parameter action: called with the signal number and how many signals came so far (1, 2, …).
    package init(signals list: [Int32], action: @escaping @Sendable (Int32, Int) -> Void) throws(SystemError) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in list { sigaddset(&set, signal) }
        let result = pthread_sigmask(SIG_BLOCK, &set, nil)
        guard result == 0 else { throw SystemError("pthread_sigmask", errno: result) }
        signals = set
        self.action = action
        // The watching thread starts with every signal blocked, so that a signal another watcher
        // waits for (SIGHUP, blocked in this thread only later) is never delivered to it and
        // handled by default (SIGHUP's default ends the process).
        var all = sigset_t(), previous = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        // It runs for the life of the process (nothing joins it).
        try thread.start { [self] in watch() }
    }

    private func watch() {
        var set = signals
        var count = 0
        while true {
            var signal: Int32 = 0
            guard sigwait(&set, &signal) == 0 else { continue }
            count += 1
            action(signal, count)
        }
    }
}
