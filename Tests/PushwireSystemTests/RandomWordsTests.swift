import Foundation
import PushwireSystem
import Synchronization
import XCTest

/// Random words are drawn in bulk per thread: every word handed out, across refills and threads,
/// is a fresh one.
final class RandomWordsTests: XCTestCase {
    /// 4 threads × 1,000 words (each thread refills 16 times): no word twice. Among 4,000 random
    /// 64-bit words a repeat has a chance of about 4e-13; a refill that did not happen, a slot
    /// handed out twice or two threads sharing a buffer repeat at once.
    func testWordsAreNeverHandedOutTwiceAcrossRefillsAndThreads() {
        let drawn = Mutex<[UInt64]>([])
        let done = DispatchGroup()
        for _ in 0..<4 {
            done.enter()
            Thread.detachNewThread {
                var mine: [UInt64] = []
                for _ in 0..<1_000 { mine.append(RandomWords.next()) }
                drawn.withLock { $0.append(contentsOf: mine) }
                done.leave()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        let words = drawn.withLock { $0 }
        XCTAssertEqual(words.count, 4_000)
        XCTAssertEqual(Set(words).count, words.count, "a word was handed out twice")
    }

    /// The words use all their bits: over 1,000 words each of the 64 bits is set about half the
    /// time (a buffer handed out before it is filled reads zeros).
    func testEveryBitIsSetAboutHalfTheTime() {
        var ones = [Int](repeating: 0, count: 64)
        for _ in 0..<1_000 {
            let word = RandomWords.next()
            for bit in 0..<64 where word & (1 << UInt64(bit)) != 0 { ones[bit] += 1 }
        }
        for (bit, count) in ones.enumerated() {
            XCTAssert((350...650).contains(count), "bit \(bit) set in \(count) of 1,000 words")
        }
    }
}
