/*
 * Internal to the Pushwire C client: the socket layer shared by the connection code.
 * Deadlines are absolute CLOCK_MONOTONIC milliseconds; PW_NO_DEADLINE waits forever.
 */
#ifndef PW_INTERNAL_H
#define PW_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#define PW_NO_DEADLINE INT64_MAX

/* Now, in milliseconds of CLOCK_MONOTONIC. */
int64_t pw_now_ms(void);

/* The absolute deadline timeout_ms from now; PW_NO_DEADLINE when timeout_ms <= 0. */
int64_t pw_deadline_after(int timeout_ms);

/* Waits for `events` (POLLIN, POLLOUT) on fd until the deadline: PW_OK, PW_ERR_TIMEOUT or
 * PW_ERR_SYSTEM. */
int pw_io_wait(int fd, short events, int64_t deadline);

/* Opens a non-blocking TCP socket connected to host:port before the deadline.
 * Returns the descriptor, or a negative pw_error. */
int pw_io_connect(const char *host, uint16_t port, int64_t deadline);

/* Writes all of buf before the deadline. Returns PW_OK or a negative pw_error. */
int pw_io_write_all(int fd, const uint8_t *buf, size_t len, int64_t deadline);

/* Reads what is available (at least one byte) into buf before the deadline.
 * Returns the byte count, or a negative pw_error (PW_ERR_CLOSED at end of stream). */
long pw_io_read_some(int fd, uint8_t *buf, size_t cap, int64_t deadline);


/* ---- TLS (pw_tls.c, built with `make TLS=1` only): the same calls over an mbedtls session. ---- */
typedef struct pw_tls pw_tls;

/* Runs the handshake on the connected socket fd before the deadline, verifying the server as
 * options say (server_name defaults to host). PW_OK with *out set, or a negative pw_error
 * (PW_ERR_TLS with the reason in why). */
int pw_tls_start(int fd, const pw_tls_options *options, const char *host, int64_t deadline,
                 pw_tls **out, char *why, size_t why_size);
int pw_tls_write_all(pw_tls *t, const uint8_t *buf, size_t len, int64_t deadline);
long pw_tls_read_some(pw_tls *t, uint8_t *buf, size_t cap, int64_t deadline);
/* Frees the session (not the socket). NULL is ignored. */
void pw_tls_free(pw_tls *t);

/* ---- Framing (pw_frame.c): the 4-byte big-endian length prefix and the Frame message. ---- */
#include <protobuf-c/protobuf-c.h>
#include "pushwire/v1/rpc.pb-c.h"

/* Encodes frame as length prefix + Frame into a new malloc'd buffer (*out, *out_len).
 * Returns PW_OK, PW_ERR_FRAME_TOO_LARGE when the payload exceeds max_frame_size, or
 * PW_ERR_NO_MEMORY. */
int pw_frame_encode(const Pushwire__V1__Frame *frame, uint32_t max_frame_size, uint8_t **out,
                    size_t *out_len);

/* An incremental frame reader over a growable buffer. */
typedef struct pw_reader {
    uint8_t *buf;
    size_t len;
    size_t cap;
    uint32_t max_frame_size;
} pw_reader;

/* Appends bytes received from the peer. PW_OK or PW_ERR_NO_MEMORY. */
int pw_reader_append(pw_reader *r, const uint8_t *bytes, size_t count);

/* Takes the next complete frame: PW_OK with *frame set (free it with
 * pushwire__v1__frame__free_unpacked), PW_OK with *frame NULL when more bytes are needed,
 * PW_ERR_FRAME_TOO_LARGE when the announced length is above the limit (checked before the payload
 * is buffered), PW_ERR_PROTOCOL when the payload is not a Frame or has no kind. */
int pw_reader_next(pw_reader *r, Pushwire__V1__Frame **frame);

/* Consumes the 8-byte preface: PW_OK, PW_ERR_BAD_PREFACE, or 1 when more bytes are needed. */
int pw_reader_preface(pw_reader *r);

/* Frees the buffer. */
void pw_reader_free(pw_reader *r);
#endif /* PW_INTERNAL_H */
