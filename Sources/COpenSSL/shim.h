// OpenSSL as Debian's libssl-dev installs it. libcrypto: EC keys, ECDSA, SHA-256, PEM (ES256
// provider tokens). libssl: TLS for the APNs gateway's nghttp2 transport.
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
