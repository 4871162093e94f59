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

/// Reads ahead: a read of the socket takes as much as OpenSSL's record buffer holds (every record
/// that has arrived, up to ~17 KB) instead of a record's 5-byte header and then its body, two
/// read(2) calls per record (docs/BENCHMARKS.md, TLS). Set on pushwired's server contexts and
/// pushwire-bench's client context.
static inline void cossl_set_read_ahead(SSL_CTX *context) {
    SSL_CTX_set_read_ahead(context, 1);
}

/// The socket BIO's read callback (see `cossl_watch_socket_reads`): after each read(2) it stores
/// whether the kernel had nothing more to give, the read taking less than it asked for, would
/// block, end of stream or an error.
static long cossl_note_socket_read(BIO *bio, int oper, const char *argp, size_t len, int argi, long argl,
                                   int ret, size_t *processed) {
    (void)argp; (void)argi; (void)argl;
    if (oper == (BIO_CB_READ | BIO_CB_RETURN)) {
        int *drained = (int *)BIO_get_callback_arg(bio);
        if (drained != NULL) *drained = ret <= 0 || processed == NULL || *processed < len;
    }
    return ret;
}

/// Makes the session's socket BIO (`SSL_set_fd`'s) keep `*drained` set to whether its last
/// read(2) left the socket empty. With read ahead, OpenSSL asks for its whole free buffer, so a
/// short read means the socket is drained: an edge-triggered reader can stop once OpenSSL holds
/// nothing more, without a last read(2) that returns EAGAIN. `drained` must outlive the session.
static inline void cossl_watch_socket_reads(SSL *ssl, int *drained) {
    BIO *bio = SSL_get_rbio(ssl);
    if (bio == NULL) return;
    BIO_set_callback_arg(bio, (char *)drained);
    BIO_set_callback_ex(bio, cossl_note_socket_read);
}

// ---- Server TLS (pushwired's listeners, PushwireRuntime/TLS) ----

/// The application protocols a Pushwire server speaks over TLS, in ALPN's wire form: `pwire/1` on
/// the RPC port, `http/1.1` on the HTTP door (docs/PROTOCOL.md, TLS).
static const unsigned char cossl_pwire_alpn[] = { 7, 'p', 'w', 'i', 'r', 'e', '/', '1' };
static const unsigned char cossl_http11_alpn[] = { 8, 'h', 't', 't', 'p', '/', '1', '.', '1' };

/// Marks a session as the HTTP door's (ex-data slot 0, the "app data" nothing else sets): its
/// ALPN choice is `http/1.1` instead of `pwire/1`. One context serves both doors, so one reload
/// renews both.
static inline void cossl_serve_http(SSL *ssl) {
    SSL_set_ex_data(ssl, 0, (void *)1);
}

/// ALPN on the server: a client offering the door's protocol gets it; one offering only other
/// protocols is refused with the no_application_protocol alert; one offering none never reaches
/// this callback and is served (PROTOCOL.md: a client that takes no part in ALPN still works).
static int cossl_select_pwire(SSL *ssl, const unsigned char **out, unsigned char *outlen,
                              const unsigned char *in, unsigned int inlen, void *arg) {
    (void)arg;
    const unsigned char *wanted = SSL_get_ex_data(ssl, 0) == (void *)1 ? cossl_http11_alpn : cossl_pwire_alpn;
    unsigned int i = 0;
    while (i < inlen) {
        unsigned int length = in[i];
        if (i + 1 + length > inlen) break;
        if (length == wanted[0] && memcmp(in + i + 1, wanted + 1, length) == 0) {
            *out = in + i + 1;
            *outlen = (unsigned char)length;
            return SSL_TLSEXT_ERR_OK;
        }
        i += 1 + length;
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL;
}

/// The settings every server context shares: TLS 1.2 minimum (1.3 is preferred by OpenSSL's
/// negotiation), ALPN (`pwire/1` or `http/1.1`), per-connection record buffers given back while idle (10,000
/// idle connections do not hold 34 KB each), reads ahead, no server-side session cache and no session tickets
/// (no client resumes; every connection is a full handshake), partial writes whose retry may move,
/// renegotiation refused, and a peer closing without close_notify is an ordinary end of stream.
static inline int cossl_configure_server(SSL_CTX *context) {
    if (SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION) != 1) return 0;
    SSL_CTX_set_alpn_select_cb(context, cossl_select_pwire, NULL);
    SSL_CTX_set_mode(context, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE |
                     SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_session_cache_mode(context, SSL_SESS_CACHE_OFF);
    cossl_set_read_ahead(context);
    // No TLS 1.3 session tickets: no Pushwire client resumes a session (each keeps its
    // connection open), so the two tickets OpenSSL sends by default after every handshake were
    // pure cost: a ticket sealed and a record written per connection (docs/BENCHMARKS.md, TLS).
    if (SSL_CTX_set_num_tickets(context, 0) != 1) return 0;
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
