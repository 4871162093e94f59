#if canImport(Glibc)
import Glibc
#endif
import PushwireStore
import Synchronization

/// Only one process may use a data directory: two processes writing one SQLite file would each
/// group-commit, checkpoint and cache as if alone (a second pushwired started and served stale
/// data). Each store holds an exclusive `flock` on `pushwire.lock` in its directory; the kernel
/// drops it when the process ends, however it ends (`kill -9` included), so a stale lock file
/// never keeps a restart out.
///
/// Within one process, stores of the same directory share the lock (tests reopen a directory a
/// "crashed" store left open): it is taken by the first and given back when the last closes. The
/// descriptor is close-on-exec, so a child process (a pushwired started by a test) does not
/// inherit it.
final class DataDirectoryLock: Sendable {
    /// The lock file's name inside the data directory.
    static let fileName = "pushwire.lock"

    private let path: String
    private let released = Mutex(false)

    /// This process's locks, by lock file path: the descriptor and how many stores hold it.
    private static let held = Mutex<[String: (descriptor: Int32, holders: Int)]>([:])

    /// Takes the lock of `dataDirectory` (an existing directory) for this process.
    /// - Throws: `.cannotOpen` when another process holds it (with its pid, as it wrote it) or
    ///   the lock file cannot be opened.
    init(dataDirectory: String) throws(StoreError) {
        // By the directory's real path: two spellings of one directory are one lock.
        let real = realpath(dataDirectory, nil)
        defer { free(real) }
        let path = (real.map { String(cString: $0) } ?? dataDirectory) + "/" + Self.fileName
        self.path = path
        let failure: StoreError? = Self.held.withLock { held -> StoreError? in
            if let entry = held[path] {
                held[path] = (entry.descriptor, entry.holders + 1)
                return nil
            }
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            if descriptor < 0 {
                return .cannotOpen(location: dataDirectory, reason: "cannot open its lock file \(path) (\(String(cString: strerror(errno))))")
            }
            var result: Int32
            repeat { result = flock(descriptor, LOCK_EX | LOCK_NB) } while result != 0 && errno == EINTR
            if result != 0 {
                let reason = errno == EWOULDBLOCK
                    ? "another process\(Self.holder(descriptor)) is using this data directory; only one pushwired may use a data directory at a time (stop the other one, or give this one another --data-dir)"
                    : "cannot lock \(path) (\(String(cString: strerror(errno))))"
                close(descriptor)
                return .cannotOpen(location: dataDirectory, reason: reason)
            }
            // The holder's pid, for the message a second process prints.
            let pid = Array("\(getpid())\n".utf8)
            _ = ftruncate(descriptor, 0)
            _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
            held[path] = (descriptor, 1)
            return nil
        }
        if let failure { throw failure }
    }

    /// " (pid N)" as the holder wrote it in the lock file, or "" when it cannot be read.
    private static func holder(_ descriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return "" }
        let digits = buffer[0..<count].prefix { $0 >= 0x30 && $0 <= 0x39 }
        guard let pid = Int32(String(decoding: digits, as: UTF8.self)) else { return "" }
        return " (pid \(pid))"
    }

    /// Gives the lock back (once); the last holder in this process unlocks and closes the file.
    func release() {
        guard released.withLock({ done in defer { done = true }; return !done }) else { return }
        Self.held.withLock { held in
            guard let entry = held[path] else { return }
            if entry.holders > 1 {
                held[path] = (entry.descriptor, entry.holders - 1)
            } else {
                held[path] = nil
                close(entry.descriptor)  // drops the flock
            }
        }
    }

    deinit { release() }
}
