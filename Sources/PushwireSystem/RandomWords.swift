#if canImport(Glibc)
import Glibc
#endif

/// 64-bit words from the kernel's CSPRNG, drawn 512 bytes at a time into a buffer of the calling
/// thread's own.
///
/// glibc's `arc4random_buf` is one getrandom(2) per call whatever its size, and every
/// CreateMessage draws 8 bytes for its code: a system call on the event loop per call, 0.7 % of
/// the server's CPU in a CreateMessage profile. Drawn in bulk it is one in 64. The words are the
/// kernel's output, each handed out once and never to another thread; a thread's buffer is wiped
/// and freed when the thread ends. Nothing in the server forks, so no two processes share one.
public enum RandomWords {
    /// Words a refill draws at once.
    static let wordsPerRefill = 64

    /// A word nobody else is handed.
    public static func next() -> UInt64 {
        // Slot 0 counts the words handed out since the last refill; slots 1...64 hold them.
        let slots = threadSlots()
        if slots[0] == UInt64(wordsPerRefill) {
            arc4random_buf(slots + 1, wordsPerRefill * 8)
            slots[0] = 0
        }
        slots[0] += 1
        return slots[Int(slots[0])]
    }

    /// The calling thread's slots, empty on its first use.
    private static func threadSlots() -> UnsafeMutablePointer<UInt64> {
        if let existing = pthread_getspecific(key) { return existing.assumingMemoryBound(to: UInt64.self) }
        let slots = UnsafeMutablePointer<UInt64>.allocate(capacity: wordsPerRefill + 1)
        slots.initialize(repeating: 0, count: wordsPerRefill + 1)
        slots[0] = UInt64(wordsPerRefill)
        pthread_setspecific(key, slots)
        return slots
    }

    /// The key of every thread's slots, wiped and freed when the thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let created = pthread_key_create(&key) { pointer in
            guard let pointer else { return }
            explicit_bzero(pointer, (RandomWords.wordsPerRefill + 1) * 8)
            pointer.deallocate()
        }
        precondition(created == 0, "pthread_key_create failed (\(created))")
        return key
    }()
}
