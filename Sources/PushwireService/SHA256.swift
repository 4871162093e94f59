import COpenSSL

/// SHA-256, used to store access tokens only as hashes: OpenSSL's (libcrypto is linked for the APNs
/// gateway anyway), which uses the CPU's SHA instructions where there are some. Every call that
/// presents a token hashes it, so this sits on the hot path of every authorized call.
public enum SHA256 {
    /// The 32-byte digest of `bytes`.
    public static func hash<Bytes: Collection>(_ bytes: Bytes) -> [UInt8] where Bytes.Element == UInt8 {
        if let digest = bytes.withContiguousStorageIfAvailable(digest) { return digest }
        return Array(bytes).withUnsafeBufferPointer(digest)
    }

    /// The digest of the UTF-8 bytes of `string`.
    public static func hash(_ string: String) -> [UInt8] {
        var string = string
        return string.withUTF8(digest)
    }

    /// SHA-256's implementation, fetched once: `EVP_sha256()` makes OpenSSL 3 look it up again
    /// at every digest, most of a short token's digest (docs/journal/2026-12-01-figures-from-code-comments.md)
    /// (nil only if the default provider has no SHA-256; `EVP_sha256()` is then used).
    /// `nonisolated(unsafe)`: a fetched method is immutable once fetched, and OpenSSL documents
    /// sharing one between threads as safe.
    private nonisolated(unsafe) static let method = EVP_MD_fetch(nil, "SHA256", nil)

    private static func digest(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let status = digest.withUnsafeMutableBufferPointer { out in
            EVP_Digest(bytes.baseAddress, bytes.count, out.baseAddress, &length, method ?? EVP_sha256(), nil)
        }
        // SHA-256 of bytes in memory fails only when OpenSSL cannot allocate its context, which no
        // input can cause; a made-up digest could match a stored one, so stop as Swift does when
        // it cannot allocate.
        precondition(status == 1 && length == 32, "OpenSSL could not compute SHA-256 (out of memory)")
        return digest
    }
}

/// Lower-case hexadecimal text of bytes.
func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: out, as: UTF8.self)
}
