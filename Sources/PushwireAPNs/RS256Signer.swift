import COpenSSL

/// An RSA private key from a service account's PEM, signing RS256 (RSASSA-PKCS1-v1_5 with
/// SHA-256) with libcrypto: the OAuth2 JWT bearer grant of FCM's access tokens.
///
/// `@unchecked Sendable`: the key is immutable after init and OpenSSL 3 allows concurrent signing
/// with one `EVP_PKEY` (each call makes its own `EVP_MD_CTX`); the only other owner is `deinit`.
final class RS256Signer: @unchecked Sendable {
    private let key: OpaquePointer

    /// Parses a PEM private key and checks that it is an RSA key of at least 2048 bits.
    /// - Throws: `FCMCredentialError.invalid` when it does not parse or is another kind of key.
    init(pem: String) throws(FCMCredentialError) {
        guard pem.contains("-----BEGIN PRIVATE KEY-----") || pem.contains("-----BEGIN RSA PRIVATE KEY-----") else {
            throw .invalid("\"private_key\" is not a PEM private key")
        }
        var bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeMutableBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // No passphrase callback: service account keys are unencrypted, and a prompt must
            // never reach a terminal from inside the server.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        ERR_clear_error()
        guard let parsed else { throw .invalid("\"private_key\" does not hold a readable private key") }
        guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_RSA else {
            EVP_PKEY_free(parsed)
            throw .invalid("\"private_key\" is not an RSA key (RS256 needs one)")
        }
        guard EVP_PKEY_get_bits(parsed) >= 2048 else {
            EVP_PKEY_free(parsed)
            throw .invalid("\"private_key\" is an RSA key shorter than 2048 bits")
        }
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    /// Signs `message`; nil if libcrypto fails (out of memory).
    func sign(_ message: [UInt8]) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { ERR_clear_error(); return nil }
        var length = 0
        let sized = message.withUnsafeBufferPointer { input in EVP_DigestSign(context, nil, &length, input.baseAddress, input.count) }
        guard sized == 1, length > 0 else { ERR_clear_error(); return nil }
        var signature = [UInt8](repeating: 0, count: length)
        let signed = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count)
        }
        guard signed == 1 else { ERR_clear_error(); return nil }
        return Array(signature.prefix(length))
    }
}
