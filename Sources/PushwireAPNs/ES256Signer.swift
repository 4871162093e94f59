import COpenSSL

/// An EC P-256 private key from a .p8 file, signing ES256 (ECDSA over SHA-256) with libcrypto.
///
/// `@unchecked Sendable`: the key is immutable after init and OpenSSL 3 allows concurrent signing
/// with one `EVP_PKEY` (each call makes its own `EVP_MD_CTX`); the only other owner is `deinit`.
final class ES256Signer: @unchecked Sendable {
    private let key: OpaquePointer

    /// Parses a PEM PKCS#8 private key and checks that it is on P-256.
    /// - Throws: `APNsCredentialError.invalidKey` when it does not parse or is another kind of key.
    init(pem: String) throws(APNsCredentialError) {
        guard pem.contains("-----BEGIN PRIVATE KEY-----") else {
            throw .invalidKey("expected a PEM 'PRIVATE KEY' (PKCS#8) block")
        }
        var bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeMutableBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // No passphrase callback: .p8 keys from Apple are unencrypted, and a prompt must never
            // reach a terminal from inside the server.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        ERR_clear_error()
        guard let parsed else { throw .invalidKey("the PEM does not hold a readable private key") }
        guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_EC else {
            EVP_PKEY_free(parsed)
            throw .invalidKey("not an elliptic-curve key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        let group = EVP_PKEY_get_group_name(parsed, &name, name.count, &length) == 1
            ? String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        guard group == "prime256v1" || group == "P-256" else {
            EVP_PKEY_free(parsed)
            throw .invalidKey("the curve is '\(group)', APNs needs P-256")
        }
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    /// Signs `message` and returns the 64-byte JOSE form r‖s (RFC 7518 §3.4), or nil if libcrypto
    /// fails (out of memory).
    func sign(_ message: [UInt8]) -> [UInt8]? {
        guard let context = EVP_MD_CTX_new() else { return nil }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1 else { ERR_clear_error(); return nil }
        var der = [UInt8](repeating: 0, count: 80)  // a P-256 DER signature is at most 72 bytes
        var derLength = der.count
        let signed = message.withUnsafeBufferPointer { input in
            EVP_DigestSign(context, &der, &derLength, input.baseAddress, input.count)
        }
        guard signed == 1 else { ERR_clear_error(); return nil }
        return Self.joseSignature(fromDER: Array(der.prefix(derLength)))
    }

    /// Converts a DER `ECDSA-Sig-Value` (SEQUENCE of two INTEGERs) to r‖s, each padded to 32 bytes.
    static func joseSignature(fromDER der: [UInt8]) -> [UInt8]? {
        der.withUnsafeBufferPointer { buffer -> [UInt8]? in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else { ERR_clear_error(); return nil }
            defer { ECDSA_SIG_free(signature) }
            var r: OpaquePointer?
            var s: OpaquePointer?
            ECDSA_SIG_get0(signature, &r, &s)
            var out = [UInt8](repeating: 0, count: 64)
            let ok = out.withUnsafeMutableBufferPointer { raw -> Bool in
                guard let base = raw.baseAddress, let r, let s else { return false }
                return BN_bn2binpad(r, base, 32) == 32 && BN_bn2binpad(s, base + 32, 32) == 32
            }
            return ok ? out : nil
        }
    }
}
