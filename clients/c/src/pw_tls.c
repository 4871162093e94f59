/*
 * TLS for the Pushwire C client, on mbedtls (Debian libmbedtls-dev, 2.28): built only with
 * `make TLS=1`. A small seam under the connection: handshake, then whole writes and partial reads
 * over the same non-blocking socket, every wait bounded by the caller's deadline through
 * pw_io_wait. Verification is never optional: the chain against the CA file (the system bundle
 * when none is given) and the server name against the certificate's DNS names. mbedtls 2.28
 * speaks TLS 1.2 only (its 1.3 is experimental and off in Debian's build) and matches DNS names
 * only: connect to an IP address with server_name set to a name in the certificate.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <mbedtls/ctr_drbg.h>
#include <mbedtls/entropy.h>
#include <mbedtls/error.h>
#include <mbedtls/net_sockets.h>
#include <mbedtls/pk.h>
#include <mbedtls/ssl.h>
#include <mbedtls/x509_crt.h>

#include "pushwire_client.h"
#include "pw_internal.h"

/* Debian's bundle of the system's trusted CAs (package ca-certificates). */
#define PW_SYSTEM_CA_FILE "/etc/ssl/certs/ca-certificates.crt"

/* Not const: mbedtls 2.28 takes `const char **` and keeps the pointer. */
static const char *alpn_protocols[] = { "pwire/1", NULL };

struct pw_tls {
    int fd;
    mbedtls_ssl_context ssl;
    mbedtls_ssl_config conf;
    mbedtls_x509_crt ca;
    mbedtls_x509_crt own_cert;
    mbedtls_pk_context own_key;
    mbedtls_entropy_context entropy;
    mbedtls_ctr_drbg_context drbg;
};

static int bio_send(void *context, const unsigned char *buf, size_t len) {
    int fd = *(int *)context;
    ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
    if (n >= 0) return (int)n;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return MBEDTLS_ERR_SSL_WANT_WRITE;
    if (errno == EPIPE || errno == ECONNRESET) return MBEDTLS_ERR_NET_CONN_RESET;
    return MBEDTLS_ERR_NET_SEND_FAILED;
}

static int bio_recv(void *context, unsigned char *buf, size_t len) {
    int fd = *(int *)context;
    ssize_t n = recv(fd, buf, len, 0);
    if (n >= 0) return (int)n; /* 0: end of stream, which mbedtls reports as such */
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return MBEDTLS_ERR_SSL_WANT_READ;
    if (errno == ECONNRESET) return MBEDTLS_ERR_NET_CONN_RESET;
    return MBEDTLS_ERR_NET_RECV_FAILED;
}

static void describe(int code, const char *doing, char *why, size_t why_size) {
    if (why == NULL || why_size == 0) return;
    char text[160];
    mbedtls_strerror(code, text, sizeof text);
    snprintf(why, why_size, "TLS: %s: %s", doing, text);
}

/* Waits as an mbedtls WANT_READ/WANT_WRITE asks; PW_OK, or the pw_error the wait ended with. */
static int wait_as_asked(const pw_tls *t, int rc, int64_t deadline) {
    return pw_io_wait(t->fd, rc == MBEDTLS_ERR_SSL_WANT_WRITE ? POLLOUT : POLLIN, deadline);
}

static int is_want(int rc) {
    return rc == MBEDTLS_ERR_SSL_WANT_READ || rc == MBEDTLS_ERR_SSL_WANT_WRITE;
}

void pw_tls_free(pw_tls *t) {
    if (t == NULL) return;
    mbedtls_ssl_free(&t->ssl);
    mbedtls_ssl_config_free(&t->conf);
    mbedtls_x509_crt_free(&t->ca);
    mbedtls_x509_crt_free(&t->own_cert);
    mbedtls_pk_free(&t->own_key);
    mbedtls_ctr_drbg_free(&t->drbg);
    mbedtls_entropy_free(&t->entropy);
    free(t);
}

static int configure(pw_tls *t, const pw_tls_options *options, const char *name, char *why, size_t why_size) {
    static const char personal[] = "pushwire-c-client";
    int rc = mbedtls_ctr_drbg_seed(&t->drbg, mbedtls_entropy_func, &t->entropy,
                                   (const unsigned char *)personal, sizeof personal - 1);
    if (rc != 0) { describe(rc, "seeding the random generator", why, why_size); return PW_ERR_TLS; }
    const char *ca_file = options->ca_file ? options->ca_file : PW_SYSTEM_CA_FILE;
    rc = mbedtls_x509_crt_parse_file(&t->ca, ca_file);
    if (rc != 0) {
        char doing[200];
        snprintf(doing, sizeof doing, "cannot load the CA certificates %s", ca_file);
        describe(rc, doing, why, why_size);
        return PW_ERR_TLS;
    }
    rc = mbedtls_ssl_config_defaults(&t->conf, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM,
                                     MBEDTLS_SSL_PRESET_DEFAULT);
    if (rc != 0) { describe(rc, "configuration", why, why_size); return PW_ERR_TLS; }
    mbedtls_ssl_conf_min_version(&t->conf, MBEDTLS_SSL_MAJOR_VERSION_3, MBEDTLS_SSL_MINOR_VERSION_3);
    mbedtls_ssl_conf_authmode(&t->conf, MBEDTLS_SSL_VERIFY_REQUIRED);
    mbedtls_ssl_conf_ca_chain(&t->conf, &t->ca, NULL);
    mbedtls_ssl_conf_rng(&t->conf, mbedtls_ctr_drbg_random, &t->drbg);
    rc = mbedtls_ssl_conf_alpn_protocols(&t->conf, alpn_protocols);
    if (rc != 0) { describe(rc, "ALPN", why, why_size); return PW_ERR_TLS; }
    if (options->client_cert != NULL) {
        const char *key_file = options->client_key ? options->client_key : options->client_cert;
        rc = mbedtls_x509_crt_parse_file(&t->own_cert, options->client_cert);
        if (rc == 0) rc = mbedtls_pk_parse_keyfile(&t->own_key, key_file, NULL);
        if (rc == 0) rc = mbedtls_ssl_conf_own_cert(&t->conf, &t->own_cert, &t->own_key);
        if (rc != 0) { describe(rc, "cannot load the client certificate or key", why, why_size); return PW_ERR_TLS; }
    }
    rc = mbedtls_ssl_setup(&t->ssl, &t->conf);
    if (rc == 0) rc = mbedtls_ssl_set_hostname(&t->ssl, name);
    if (rc != 0) { describe(rc, "setup", why, why_size); return PW_ERR_TLS; }
    mbedtls_ssl_set_bio(&t->ssl, &t->fd, bio_send, bio_recv, NULL);
    return PW_OK;
}

int pw_tls_start(int fd, const pw_tls_options *options, const char *host, int64_t deadline,
                 pw_tls **out, char *why, size_t why_size) {
    *out = NULL;
    pw_tls *t = calloc(1, sizeof *t);
    if (t == NULL) return PW_ERR_NO_MEMORY;
    t->fd = fd;
    mbedtls_ssl_init(&t->ssl);
    mbedtls_ssl_config_init(&t->conf);
    mbedtls_x509_crt_init(&t->ca);
    mbedtls_x509_crt_init(&t->own_cert);
    mbedtls_pk_init(&t->own_key);
    mbedtls_entropy_init(&t->entropy);
    mbedtls_ctr_drbg_init(&t->drbg);
    const char *name = options->server_name ? options->server_name : host;
    int result = configure(t, options, name, why, why_size);
    while (result == PW_OK) {
        int rc = mbedtls_ssl_handshake(&t->ssl);
        if (rc == 0) break;
        if (is_want(rc)) { result = wait_as_asked(t, rc, deadline); continue; }
        uint32_t flags = mbedtls_ssl_get_verify_result(&t->ssl);
        if (rc == MBEDTLS_ERR_X509_CERT_VERIFY_FAILED && flags != 0 && why != NULL && why_size > 0) {
            char info[256];
            mbedtls_x509_crt_verify_info(info, sizeof info, "", flags);
            info[strcspn(info, "\n")] = '\0'; /* the first reason; one line */
            snprintf(why, why_size, "TLS: certificate verification failed for %s: %s", name, info);
        } else {
            describe(rc, "handshake", why, why_size);
        }
        result = PW_ERR_TLS;
    }
    if (result == PW_OK) {
        /* mbedtls refuses a protocol it did not offer; a server without ALPN selects none. */
        const char *selected = mbedtls_ssl_get_alpn_protocol(&t->ssl);
        if (selected != NULL && strcmp(selected, alpn_protocols[0]) != 0) {
            if (why != NULL && why_size > 0) snprintf(why, why_size, "TLS: the server selected ALPN %s", selected);
            result = PW_ERR_TLS;
        }
    }
    if (result != PW_OK) {
        int saved = errno;
        pw_tls_free(t);
        errno = saved;
        return result;
    }
    *out = t;
    return PW_OK;
}

int pw_tls_write_all(pw_tls *t, const uint8_t *buf, size_t len, int64_t deadline) {
    size_t done = 0;
    while (done < len) {
        int rc = mbedtls_ssl_write(&t->ssl, buf + done, len - done);
        if (rc > 0) { done += (size_t)rc; continue; }
        if (is_want(rc)) {
            int w = wait_as_asked(t, rc, deadline);
            if (w != PW_OK) return w;
            continue;
        }
        return rc == MBEDTLS_ERR_NET_CONN_RESET ? PW_ERR_CLOSED : PW_ERR_TLS;
    }
    return PW_OK;
}

long pw_tls_read_some(pw_tls *t, uint8_t *buf, size_t cap, int64_t deadline) {
    for (;;) {
        int rc = mbedtls_ssl_read(&t->ssl, buf, cap);
        if (rc > 0) return rc;
        if (rc == 0 || rc == MBEDTLS_ERR_SSL_PEER_CLOSE_NOTIFY || rc == MBEDTLS_ERR_NET_CONN_RESET)
            return PW_ERR_CLOSED;
        if (is_want(rc)) {
            int w = wait_as_asked(t, rc, deadline);
            if (w != PW_OK) return w;
            continue;
        }
        return PW_ERR_TLS;
    }
}
