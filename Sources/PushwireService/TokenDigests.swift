import Synchronization

/// The SHA-256 digests of the bearer tokens presented lately, so that a client calling again with
/// the same token (an operator's every call) is not hashed again: OpenSSL's digest of a short
/// token cost 6,200 instructions a call, 2.2 % of a CreateMessage to 10 devices
/// (`Scripts/bench-ab/instructions`), where this costs a few hundred.
///
/// Direct-mapped: a token has one slot, chosen by the standard library's hash, which is seeded
/// at random per process, so that nobody can aim tokens at a slot; a token in that slot counts
/// only when it equals the one presented, compared in constant time as digests are. Whether a
/// token was found here tells nothing its caller does not know: only the token itself finds it.
/// A token that loses its slot to another is hashed again the next time.
final class TokenDigests: Sendable {
    private struct Slot {
        let token: String
        let digest: [UInt8]
    }

    /// How many tokens are kept: a deployment's operators present a handful.
    static let capacity = 64

    private let slots = Mutex([Slot?](repeating: nil, count: TokenDigests.capacity))

    /// The longest token kept: access tokens are 64 characters; a longer one (anybody may send
    /// one) is hashed each time rather than held, so the slots hold at most 64 × 256 bytes.
    static let longestKept = 256

    /// The SHA-256 digest of `token`'s UTF-8 bytes.
    func digest(of token: String) -> [UInt8] {
        if token.utf8.count > Self.longestKept { return SHA256.hash(token) }
        let index = Self.slot(of: token)
        if let slot = slots.withLock({ $0[index] }), Credentials.constantTimeEqual(slot.token, token) {
            return slot.digest
        }
        let digest = SHA256.hash(token)
        slots.withLock { $0[index] = Slot(token: token, digest: digest) }
        return digest
    }

    /// The slot `token` goes to.
    static func slot(of token: String) -> Int {
        var hasher = Hasher()
        hasher.combine(token)
        return Int(UInt(bitPattern: hasher.finalize()) % UInt(capacity))
    }
}
