#if canImport(Glibc)
import Glibc
#endif

/// An exclusive `flock` on `<data-dir>/pushwired.lock`, held for the process's lifetime: a second
/// `pushwired` on the same data directory, or a `pushwired restore` into one a server is using,
/// is refused instead of corrupting it. The kernel drops the lock when the process dies, even by
/// `kill -9`, so a stale lock file never blocks a restart.
enum DataDirectoryLock {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Takes the lock (creating the directory and the lock file when missing) and keeps it.
    /// - Returns: the descriptor holding it; closing it releases the lock.
    @discardableResult
    static func acquire(_ dataDirectory: String) throws(Failure) -> Int32 {
        if mkdir(dataDirectory, 0o700) != 0 && errno != EEXIST {
            throw Failure(description: "cannot create the data directory '\(dataDirectory)': \(String(cString: strerror(errno)))")
        }
        let path = dataDirectory + "/pushwired.lock"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(description: "cannot open '\(path)': \(String(cString: strerror(errno)))") }
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            if errno == EINTR { continue }
            let busy = errno == EWOULDBLOCK
            let reason = String(cString: strerror(errno))
            close(fd)
            throw Failure(description: busy ? "the data directory '\(dataDirectory)' is in use by another pushwired"
                                            : "cannot lock '\(path)': \(reason)")
        }
        return fd
    }
}
