import Synchronization

/// The largest answer one method has given so far, across every connection of the server: what
/// the byte budget reserves for that method's next answer (`reservation`).
///
/// Why: an answer's size is known only once it is made, so a call's work starts with room
/// reserved for it. A fixed 64 KiB suits most answers, but a method whose answers are larger (a
/// GetMessageDetails of a 3.7 MB message) would let a client that never reads start as many
/// calls as 64 KiB fit in its budget and have each make a large answer. Once such a method has
/// given one large answer, its calls reserve that much, so one connection runs about as many of
/// them as its budget holds. It only grows: one large answer makes the method's later calls run
/// fewer at a time per connection, never more than the budget allows.
final class AnswerSizes: Sendable {
    private let largest = Atomic<Int>(0)

    init() {}

    /// The room to reserve for the method's next answer: its largest answer so far, at least `floor`.
    @inline(__always)
    func reservation(floor: Int) -> Int {
        max(floor, largest.load(ordering: .relaxed))
    }

    /// Records an answer of `bytes`; from any thread. A load, and a write only for a new largest.
    @inline(__always)
    func note(_ bytes: Int) {
        if bytes > largest.load(ordering: .relaxed) { largest.max(bytes, ordering: .relaxed) }
    }
}
