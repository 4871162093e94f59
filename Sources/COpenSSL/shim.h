// OpenSSL as Debian's libssl-dev installs it. libcrypto: EC keys, ECDSA, SHA-256, PEM (ES256
// provider tokens). libssl: TLS for the APNs gateway's nghttp2 transport.
#include <string.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/sha.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

// These OpenSSL "functions" are macros over SSL_ctrl/SSL_CTX_ctrl, which Swift cannot import;
// the typed wrappers (prefixed cossl_) are the only way Swift code reaches them.

static inline int cossl_set_min_tls12(SSL_CTX *context) {
    return (int)SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}

static inline int cossl_set_sni(SSL *ssl, const char *name) {
    return (int)SSL_set_tlsext_host_name(ssl, name);
}

/// Partial writes, and a retried write may pass a different (moved) buffer with the same bytes.
static inline void cossl_set_write_modes(SSL *ssl) {
    SSL_set_mode(ssl, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
}

// ---- Server TLS (pushwired's listeners, PushwireRuntime/TLS) ----

/// The one application protocol a Pushwire server speaks over TLS (docs/PROTOCOL.md, TLS).
static const unsigned char cossl_pwire_alpn[] = { 7, 'p', 'w', 'i', 'r', 'e', '/', '1' };

/// ALPN on the server: a client offering `pwire/1` gets it; one offering only other protocols is
/// refused with the no_application_protocol alert; one offering none never reaches this callback
/// and is served (PROTOCOL.md: a client that takes no part in ALPN still works).
static int cossl_select_pwire(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                              const unsigned char *in, unsigned int inlen, void *arg) {
    (void)ssl; (void)arg;
    unsigned int i = 0;
    while (i < inlen) {
        unsigned int length = in[i];
        if (i + 1 + length > inlen) break;
        if (length == 7 && memcmp(in + i + 1, cossl_pwire_alpn + 1, 7) == 0) {
            *out = in + i + 1;
            *outlen = 7;
            return SSL_TLSEXT_ERR_OK;
        }
        i += 1 + length;
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL;
}

/// The settings every server context shares: TLS 1.2 minimum (1.3 is preferred by OpenSSL's
/// negotiation), ALPN `pwire/1`, per-connection record buffers given back while idle (10,000
/// idle connections do not hold 34 KB each), no server-side session cache (TLS 1.3 tickets are
/// stateless; a cache would hold a session per client), partial writes whose retry may move,
/// renegotiation refused, and a peer closing without close_notify is an ordinary end of stream.
static inline int cossl_configure_server(SSL_CTX *context) {
    if (SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1) return 0;
    SSL_CTX_set_alpn_select_cb(context, cossl_select_pwire, NULL);
    SSL_CTX_set_mode(context, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE |
                     SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
    SSL_CTX_set_options(context, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE |
                                 SSL_OP_IGNORE_UNEXPECTED_EOF);
    return 1;
}

/// Whether the peer presented a certificate that verified against the context's client CAs.
static inline int cossl_peer_certificate_verified(const SSL *ssl) {
    X509 *peer = SSL_get0_peer_certificate(ssl);
    return peer != NULL && SSL_get_verify_result(ssl) == X509_V_OK;
}

/// A client context that keeps no sessions (each benchmark connection is a full handshake).
static inline long cossl_client_no_session_cache(SSL_CTX *context) {
    return SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
}
