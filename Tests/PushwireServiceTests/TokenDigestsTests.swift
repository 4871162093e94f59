import XCTest
@testable import PushwireService

/// `TokenDigests` answers exactly what `SHA256.hash` does, whichever tokens share its slots.
final class TokenDigestsTests: XCTestCase {
    func testEveryAnswerIsTheTokensDigest() async {
        let digests = TokenDigests()
        // Four times as many tokens as slots, each asked three times in turns, so that tokens
        // share slots, evict each other and are found again; plus tokens that differ in one byte
        // or only in length (the constant-time comparison's cases) and a non-ASCII one.
        var tokens = (0 ..< TokenDigests.capacity * 4).map { _ in Credentials.newAccessToken() }
        let base = tokens[0]
        tokens += [String(base.dropLast()) + "x", String(base.dropLast()), base + "0", "", "é", "token é",
                   String(repeating: "a", count: TokenDigests.longestKept + 1)]
        for _ in 0 ..< 3 {
            for token in tokens.shuffled() {
                XCTAssertEqual(digests.digest(of: token), SHA256.hash(token), "token \(token)")
            }
        }
        // Tokens that go to one slot and differ only in their last bytes, or only in length: each
        // asked right after the other is told its own digest, not the one in the slot.
        let sharing = Self.tokensSharingASlot(with: base)
        for token in [base] + sharing + [base] + sharing.reversed() {
            XCTAssertEqual(digests.digest(of: token), SHA256.hash(token), "token \(token)")
        }
        // A token asked again straight away is answered from its slot: the same answer.
        for token in tokens {
            XCTAssertEqual(digests.digest(of: token), digests.digest(of: token))
        }
    }

    /// A token of the same length as `base` that differs from it in its last two bytes only, and one
    /// that is `base` with bytes added, both in `base`'s slot.
    private static func tokensSharingASlot(with base: String) -> [String] {
        let slot = TokenDigests.slot(of: base)
        let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        var found: [String] = []
        search: for a in alphabet {
            for b in alphabet {
                let candidate = String(base.dropLast(2)) + String(a) + String(b)
                if candidate != base, TokenDigests.slot(of: candidate) == slot { found.append(candidate); break search }
            }
        }
        for a in alphabet {
            let candidate = base + String(a)
            if TokenDigests.slot(of: candidate) == slot { found.append(candidate); break }
            for b in alphabet where TokenDigests.slot(of: candidate + String(b)) == slot {
                found.append(candidate + String(b))
                return found
            }
        }
        return found
    }
}
