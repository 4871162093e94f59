import COpenSSL

/// A private key from a PEM, signing JWTs with libcrypto: ES256 (ECDSA P-256 over SHA-256, APNs'
/// provider tokens from a .p8 file) or RS256 (RSASSA-PKCS1-v1_5 with SHA-256, the OAuth2 JWT
/// bearer grant of FCM's access tokens). One `EVP_PKEY` and one `EVP_DigestSign` path for both;
/// the algorithms differ only in the key they accept and in the signature's form.
///
/// `@unchecked Sendable`: the key is immutable after init and OpenSSL 3 allows concurrent signing
/// with one `EVP_PKEY` (each call makes its own `EVP_MD_CTX`); the only other owner is `deinit`.
final class JWTSigner: @unchecked Sendable {
    /// The JWS algorithm (RFC 7518 §3.1) and the key it needs.
    enum Algorithm: Sendable {
        /// ECDSA over P-256 with SHA-256, signatures in the 64-byte JOSE form r‖s.
        case es256
        /// RSASSA-PKCS1-v1_5 with SHA-256, keys of at least 2048 bits.
        case rs256
    }

    /// Why a PEM cannot sign; `reason(for:)` words it for the file it came from.
    enum KeyError: Error, Equatable {
        case notPEM
        case unreadable
        case wrongKind
        case rsaTooShort
        case wrongCurve(String)

        /// The message shown to whoever gave the key: the .p8 file's for ES256, the service
        /// account's `private_key` for RS256.
        func reason(for algorithm: Algorithm) -> String {
            switch (self, algorithm) {
            case (.notPEM, .es256): "expected a PEM 'PRIVATE KEY' (PKCS#8) block"
            case (.notPEM, .rs256): "\"private_key\" is not a PEM private key"
            case (.unreadable, .es256): "the PEM does not hold a readable private key"
            case (.unreadable, .rs256): "\"private_key\" does not hold a readable private key"
            case (.wrongKind, .es256): "not an elliptic-curve key"
            case (.wrongKind, .rs256): "\"private_key\" is not an RSA key (RS256 needs one)"
            case (.rsaTooShort, _): "\"private_key\" is an RSA key shorter than 2048 bits"
            case (.wrongCurve(let group), _): "the curve is '\(group)', APNs needs P-256"
            }
        }
    }

    let algorithm: Algorithm
    private let key: OpaquePointer

    /// Parses a PEM private key and checks that it fits `algorithm` (an EC key on P-256 for ES256,
    /// an RSA key of at least 2048 bits for RS256).
    init(pem: String, algorithm: Algorithm) throws(KeyError) {
        let pkcs8 = pem.contains("-----BEGIN PRIVATE KEY-----")
        guard pkcs8 || (algorithm == .rs256 && pem.contains("-----BEGIN RSA PRIVATE KEY-----")) else { throw .notPEM }
        var bytes = Array(pem.utf8)
        let parsed: OpaquePointer? = bytes.withUnsafeMutableBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // No passphrase callback: .p8 and service-account keys are unencrypted, and a prompt
            // must never reach a terminal from inside the server.
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        ERR_clear_error()
        guard let parsed else { throw .unreadable }
        do throws(KeyError) {
            try Self.check(parsed, for: algorithm)
        } catch {
            EVP_PKEY_free(parsed)
            throw error
        }
        self.algorithm = algorithm
        key = parsed
    }

    deinit { EVP_PKEY_free(key) }

    private static func check(_ key: OpaquePointer, for algorithm: Algorithm) throws(KeyError) {
        switch algorithm {
        case .rs256:
            guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else { throw .wrongKind }
            guard EVP_PKEY_get_bits(key) >= 2048 else { throw .rsaTooShort }
        case .es256:
            guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC else { throw .wrongKind }
            var name = [CChar](repeating: 0, count: 64)
            var length = 0
            let group = EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1
                ? String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
            guard group == "prime256v1" || group == "P-256" else { throw .wrongCurve(group) }
        }
    }

    /// `base64url(header).base64url(claims).base64url(signature)`, or nil if libcrypto fails.
    func compact(header: String, claims: String) -> String? {
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        guard let signature = sign(Array(signingInput.utf8)) else { return nil }
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Signs `message` as the algorithm's JWS signature (r‖s for ES256, the PKCS#1 v1.5 block for
    /// RS256); nil if libcrypto fails (out of memory).
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
        let produced = Array(signature.prefix(length))
        switch algorithm {
        case .rs256: return produced
        case .es256: return Self.joseSignature(fromDER: produced)
        }
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
